"""A CRD's schema made strict: what the API server would prune from an object without a
word (an unknown field) becomes an error, and nothing else does.

The API server prunes by the structural part of the schema only
(k8s.io/apiextensions-apiserver pkg/apiserver/schema/pruning): the fields a map's
`properties` do not name, unless it has `x-kubernetes-preserve-unknown-fields` (the
properties it does name are still pruned by their own schemas). It never prunes
`apiVersion`, `kind` and `metadata` at the object's root nor in an object marked
`x-kubernetes-embedded-resource`: those are the object's TypeMeta and ObjectMeta, which
a CRD's schema need not write (at the root it may only narrow `metadata.name` and
`metadata.generateName`). Value validations (`allOf`, `anyOf`, `oneOf`, `not`) prune
nothing, and data (`enum`, `default`, `example`, `const`) is data, whatever keys it has.
"""

from __future__ import annotations

from typing import Any

# The object's own fields, allowed wherever an object is a resource; `metadata` is
# ObjectMeta, never pruned by the CRD's schema.
_OBJECT_FIELDS: dict[str, dict[str, Any]] = {
    "apiVersion": {"type": "string"},
    "kind": {"type": "string"},
    "metadata": {"type": "object"},
}
# Keywords whose value is one schema, or a list of them (draft 7 `items`).
_SCHEMA_KEYWORDS = ("items", "additionalProperties", "additionalItems")
# Keywords whose value maps names to schemas; `$ref` may point into `definitions`.
_NAMED_KEYWORDS = ("properties", "patternProperties", "definitions", "$defs")


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (a CRD version's openAPIV3Schema) with `additionalProperties: false`
    where the API server would prune unknown fields; the input is not changed."""
    strict: dict[str, Any] = _strict(schema, resource=True)
    return strict


def _strict(schema: Any, *, resource: bool = False) -> Any:
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    resource = resource or schema.get("x-kubernetes-embedded-resource") is True
    for key in _NAMED_KEYWORDS:
        if isinstance(out.get(key), dict):
            out[key] = {name: _strict(sub) for name, sub in out[key].items()}
    written = schema.get("properties")
    if resource and isinstance(written, dict) and "metadata" in written:
        # ObjectMeta: only what the CRD narrows (a name's pattern), never pruned.
        out["properties"]["metadata"] = written["metadata"]
    for key in _SCHEMA_KEYWORDS:
        if key in out:
            out[key] = _each(out[key])
    preserve = out.get("x-kubernetes-preserve-unknown-fields") is True
    if "properties" in out and "additionalProperties" not in out and not preserve:
        out["additionalProperties"] = False
        if resource:
            out["properties"] = _OBJECT_FIELDS | out["properties"]
    return out


def _each(value: Any) -> Any:
    return [_strict(v) for v in value] if isinstance(value, list) else _strict(value)
