"""The schemas kgen checks rendered objects with leave out the descriptions
(kgen.check.lean): nothing else, and every check finds the same errors, worded alike."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import jsonschema_rs
import pytest
import yaml
from jsonschema import Draft202012Validator

from kgen.check import core, output
from kgen.check.envelope import envelope
from kgen.check.lean import without_descriptions
from kgen.kinds import ALL_KINDS, KINDS
from kgen.kinds.targets import TARGETS
from tests.conftest import REPO

VERSION = core.DEFAULT_KUBERNETES_VERSION


def _full_schema() -> dict[str, Any]:
    return core.with_definitions(envelope(KINDS["pytorch"], TARGETS["v1"]), VERSION)


def test_only_descriptions_go():
    schema = {
        "description": "a job",
        "type": "object",
        "properties": {
            # A field named `description` is a property, not prose.
            "description": {"type": "string", "description": "what it is"},
            "mode": {"enum": [{"description": "data"}], "default": {"description": 1}},
            "list": {"items": [{"description": "tuple", "const": 1}]},
        },
        "allOf": [{"description": "x", "required": ["description"]}],
        "additionalProperties": {"description": "y", "type": "integer"},
        "$defs": {"a": {"description": "z", "minimum": 0, "maximum": 3}},
    }
    assert without_descriptions(schema) == {
        "type": "object",
        "properties": {
            "description": {"type": "string"},
            "mode": {"enum": [{"description": "data"}], "default": {"description": 1}},
            "list": {"items": [{"const": 1}]},
        },
        "allOf": [{"required": ["description"]}],
        "additionalProperties": {"type": "integer"},
        "$defs": {"a": {"minimum": 0, "maximum": 3}},
    }
    assert "description" in schema  # a copy: the published schemas keep theirs


def _job() -> dict[str, Any]:
    text = (REPO / "manifests/prod-gpu/mnist-ddp.pytorchjob.yaml").read_text()
    body: dict[str, Any] = yaml.safe_load(text)
    return body


def _pod(body: dict[str, Any]) -> dict[str, Any]:
    specs = body["spec"]["pytorchReplicaSpecs"]
    pod: dict[str, Any] = specs["Master"]["template"]["spec"]
    return pod


def _set(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    body = copy.deepcopy(_job())
    change(body)
    return body


BROKEN = {
    "valid": _set(lambda b: None),
    "unknown field": _set(lambda b: _pod(b).update(hostnetwork=True)),
    "wrong type": _set(lambda b: _pod(b).update(hostNetwork="yes")),
    "out of range": _set(
        lambda b: _pod(b).update(securityContext={"runAsUser": 10**20})
    ),
    "not one of": _set(
        lambda b: b["spec"].setdefault("runPolicy", {}).update(cleanPodPolicy="Some")
    ),
    "missing": _set(lambda b: _pod(b)["containers"][0].pop("name")),
    "top level": _set(lambda b: b.update(extra={})),
}


def _found(schema: dict[str, Any], body: dict[str, Any]) -> list[tuple[object, ...]]:
    """What a check reads of each error of `body` against `schema`."""
    errors = Draft202012Validator(schema).iter_errors(body)
    return sorted(
        (
            list(e.absolute_path),
            e.validator,
            e.message,
            core.range_message(e),
            sorted(e.schema.get("properties", {}))
            if isinstance(e.schema, dict)
            else None,
        )
        for e in errors
    )


@pytest.mark.parametrize("name", BROKEN)
def test_a_lean_schema_finds_what_the_full_one_finds(name: str):
    body = BROKEN[name]
    full, lean = _full_schema(), without_descriptions(_full_schema())
    assert _found(lean, body) == _found(full, body)
    assert (_found(full, body) == []) == (name == "valid")
    rs = jsonschema_rs
    assert rs.validator_for(lean).is_valid(body) == (name == "valid")


# The core objects kgen checks by themselves (kgen.check.output, kgen.check.core).
CORE_OBJECTS = (
    *output.CORE_DEFINITIONS.values(),
    *(core.AFFINITY, core.SECURITY_CONTEXT, core.POD_SECURITY_CONTEXT),
    core.METRIC_SPEC,
)


@pytest.mark.parametrize("version", sorted({core.supported_versions()[0], VERSION}))
def test_shared_lean_definitions_give_the_schema_made_lean_whole(version: str):
    """lean_with_definitions shares each lean definition among the schemas: every
    kind's on every target, and each core object's, is still the very schema (key
    order too: it is what the cache stores) that making the whole schema lean gave."""
    schemas = [
        envelope(kind, target) for kind in ALL_KINDS for target in TARGETS.values()
    ]
    schemas += [{"$ref": f"#/$defs/{name}"} for name in CORE_OBJECTS]
    schemas.append({"description": "kept last", "$defs": {"x": {}}, "type": "object"})
    for schema in schemas:
        whole = without_descriptions(core.with_definitions(schema, version))
        shared = core.lean_with_definitions(schema, version)
        assert json.dumps(shared) == json.dumps(whole)


@pytest.mark.parametrize("name", BROKEN)
def test_shared_lean_definitions_find_what_the_whole_lean_schema_finds(name: str):
    body = BROKEN[name]
    schema = envelope(KINDS["pytorch"], TARGETS["v1"])
    whole = without_descriptions(core.with_definitions(schema, VERSION))
    shared = core.lean_with_definitions(schema, VERSION)
    assert _found(shared, body) == _found(whole, body)
    rs = jsonschema_rs
    assert rs.validator_for(shared).is_valid(body) == (name == "valid")
