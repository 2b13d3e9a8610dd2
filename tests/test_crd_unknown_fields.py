"""A user CRD's check names every unknown field of an object in one run (up to the
output check's cap), not the first alone: kgen.check.crds.CrdValidator."""

from __future__ import annotations

from typing import Any

import jsonschema_rs

from kgen.check.crd_strict import strict_schema
from kgen.check.crds import CrdValidator
from kgen.check.output import MAX_ERRORS, check_output
from kgen.render.base import Manifest

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "spec": {
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"name": {}}},
                },
                "size": {"type": "integer"},
            },
        },
    },
}
_KEY = ("example.com/v1", "Widget")


def _messages(spec: dict[str, Any]) -> list[str]:
    validator = CrdValidator(jsonschema_rs.Draft7Validator(strict_schema(_SCHEMA)))
    body = {"apiVersion": _KEY[0], "kind": _KEY[1], "spec": spec}
    found = check_output(
        [Manifest("Widget", "w", body)],
        target="v1",
        version="1.31",
        crds={_KEY: validator},
    )
    return [
        p.message.removeprefix("the rendered Widget 'w' is invalid at ") for p in found
    ]


def test_each_unknown_field_is_named_at_its_place():
    spec = {"extra": 1, "items": [{"name": "a", "one": 1}, {"name": "b", "two": 2}]}
    unknown = "unknown field (the schema has no such property)"
    assert sorted(_messages(spec)) == [
        f"spec.extra: {unknown}",
        f"spec.items[0].one: {unknown}",
        f"spec.items[1].two: {unknown}",
    ]


def test_as_many_as_the_cap_are_named():
    messages = _messages({"items": [{f"k{i}": i} for i in range(3 * MAX_ERRORS)]})
    assert len(messages) == MAX_ERRORS + 1
    assert messages[-1] == (
        f"the rendered Widget 'w' has more than {MAX_ERRORS} schema errors;"
        " the rest are not listed"
    )
