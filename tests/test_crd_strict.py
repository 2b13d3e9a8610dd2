"""A user CRD's schema is strict where the API server prunes, and nowhere else:
kgen.check.crd_strict. An object's apiVersion, kind and metadata are its own at the
root and in an embedded resource; data and value validations are never rewritten."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema_rs

from kgen.check.crd_strict import strict_schema
from kgen.check.crds import CrdValidator
from tests.conftest import RunKgen

_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.a.io}
spec:
  group: a.io
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: {type: integer}
"""


def _widget(spec: str) -> str:
    return (
        "apiVersion: a.io/v1\nkind: Widget\n"
        f"metadata: {{name: w, labels: {{team: a}}}}\nspec: {spec}\n"
    )


def _validate(project: Callable[..., Path], run_kgen: RunKgen, spec: str) -> Any:
    root = project(
        {
            "kgen.yaml": "environments:\n  dev: [v1]\ncrds: [crds/w.yaml]\n",
            "jobs/.keep": "",
            "crds/w.yaml": _CRD,
            "resources/dev/w.yaml": _widget(spec),
        }
    )
    return run_kgen("validate", "--format", "parsable", cwd=root)


def test_an_object_of_an_ordinary_structural_crd_is_valid(
    project: Callable[..., Path], run_kgen: RunKgen
):
    result = _validate(project, run_kgen, "{size: 3}")
    assert result.code == 0, result


def test_an_unknown_field_of_it_is_still_an_error_at_its_line(
    project: Callable[..., Path], run_kgen: RunKgen
):
    result = _validate(project, run_kgen, "{size: 3, extra: 1}")
    assert result.code == 1, result
    assert result.out.splitlines() == [
        "resources/dev/w.yaml:4:7: [error] invalid Widget: Additional properties"
        " are not allowed ('extra' was unexpected) (invalid-value)"
    ]


def _errors(schema: dict[str, Any], body: dict[str, Any]) -> list[str]:
    validator = CrdValidator(jsonschema_rs.Draft7Validator(strict_schema(schema)))
    return [e.message for e in validator.iter_errors(body)]


_OBJECT = {"apiVersion": "a.io/v1", "kind": "Widget", "metadata": {"name": "w"}}


def test_root_metadata_is_object_meta_narrowed_only_as_the_crd_says():
    schema = {
        "type": "object",
        "properties": {
            "metadata": {
                "type": "object",
                "properties": {"name": {"type": "string", "maxLength": 3}},
            }
        },
    }
    labelled = {**_OBJECT, "metadata": {"name": "w", "labels": {"a": "b"}}}
    assert _errors(schema, labelled) == []
    named = {**_OBJECT, "metadata": {"name": "widget"}}
    assert _errors(schema, named) == ["'widget' is longer than 3 characters"]
    assert _errors(schema, {**_OBJECT, "status": {}}) == [
        "Additional properties are not allowed ('status' was unexpected)"
    ]


def test_an_embedded_resource_has_its_own_type_and_object_meta():
    template = {
        "type": "object",
        "x-kubernetes-embedded-resource": True,
        "properties": {"spec": {"type": "object", "properties": {}}},
    }
    schema = {"type": "object", "properties": {"template": template}}
    embedded = {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {}}}
    assert _errors(schema, {**_OBJECT, "template": {**embedded, "spec": {}}}) == []
    assert _errors(schema, {**_OBJECT, "template": {"spec": {}, "x": 1}}) == [
        "Additional properties are not allowed ('x' was unexpected)"
    ]
    assert _errors(schema, {**_OBJECT, "template": {"spec": {"x": 1}}}) == [
        "Additional properties are not allowed ('x' was unexpected)"
    ]


def test_data_with_a_properties_key_is_kept_as_written():
    value = {"properties": {"a": 1}}
    mode = {"type": "object", "enum": [value], "default": value}
    schema = {"type": "object", "properties": {"mode": mode}}
    assert strict_schema(schema)["properties"]["mode"] == mode
    assert _errors(schema, {**_OBJECT, "mode": value}) == []


def test_value_validations_prune_nothing():
    spec = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "anyOf": [{"properties": {"a": {"minimum": 1}}, "required": ["a"]}],
    }
    schema = {"type": "object", "properties": {"spec": spec}}
    assert _errors(schema, {**_OBJECT, "spec": {"a": 1, "b": 2}}) == []


def test_preserved_fields_stay_open_but_named_ones_are_still_checked():
    inner = {"type": "object", "properties": {"n": {"type": "integer"}}}
    spec = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
        "properties": {"inner": inner},
    }
    schema = {"type": "object", "properties": {"spec": spec}}
    assert _errors(schema, {**_OBJECT, "spec": {"free": {"any": 1}}}) == []
    assert _errors(schema, {**_OBJECT, "spec": {"inner": {"m": 1}}}) == [
        "Additional properties are not allowed ('m' was unexpected)"
    ]
