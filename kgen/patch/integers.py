"""Whole numbers the patches wrote as floats (`value: 3.0`) into integer fields,
written as the integers the cluster holds.

kubectl, Argo CD and Flux read a manifest through sigs.k8s.io/yaml, whose YAMLToJSON
decodes `3.0` to a float64 that Go's encoding/json writes as `3`; and the API server's
own check takes a whole float for `type: integer` (k8s.io/kube-openapi
pkg/validation/validate/type.go, `isFloatInt`). Either way the object stored says 3:
an output that said 3.0 was not what is applied. Where a field takes any number (a
quantity) the float is left as written; a fraction, or a number past int64, is left
for the output check to refuse."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kgen.errors import DataPath
from kgen.render.base import Manifest

_DEFS = "#/$defs/"
_INT64 = 2**63


def whole_numbers(
    objects: list[Manifest], *, target: str, version: str, crds: Mapping[Any, Any]
) -> list[Manifest]:
    """`objects` with each whole float a patch wrote into an integer field made an
    int, in place (the bodies are the patches' own copies)."""
    for manifest in objects:
        if manifest.patched is None:
            continue
        floats = list(_whole_floats(manifest.body, ()))
        if not floats:
            continue
        schemas = _schemas(manifest, target=target, version=version, crds=crds)
        for path, value in floats:
            if any(_integer_at(schema, path) for schema in schemas):
                _set(manifest.body, path, int(value))
    return objects


def _whole_floats(node: Any, path: DataPath) -> Iterator[tuple[DataPath, float]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _whole_floats(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _whole_floats(value, (*path, index))
    elif isinstance(node, float) and node.is_integer() and abs(node) < _INT64:
        yield path, node


def _schemas(
    manifest: Manifest, *, target: str, version: str, crds: Mapping[Any, Any]
) -> list[dict[str, Any]]:
    """The schemas the output check holds the object to: its kind's envelope or core
    definition, and the project's CRD of its kind."""
    from kgen.check import core
    from kgen.check.output import CORE_DEFINITIONS, job_schema
    from kgen.kinds import kind_named
    from kgen.kinds.targets import pod_schema_version

    found: list[dict[str, Any]] = []
    definition = CORE_DEFINITIONS.get(manifest.kind)
    if kind_named(manifest.kind) is not None:
        schema_version = pod_schema_version(target, version)
        found.append(job_schema(manifest.kind, target, schema_version))
    elif definition is not None:
        found.append(core.definition_schema(definition, version))
    crd = crds.get((manifest.body.get("apiVersion"), manifest.kind))
    written = getattr(crd, "schema", None)  # as the CRD wrote it (kgen.check.crds)
    if isinstance(written, dict):
        found.append(written)
    return found


def _integer_at(root: dict[str, Any], path: DataPath) -> bool:
    """Whether the place at `path` takes an integer and no other number."""
    nodes = _expanded(root, root)
    for step in path:
        nodes = [
            below
            for node in nodes
            for sub in _step(node, step)
            for below in _expanded(sub, root)
        ]
        if not nodes:
            return False
    types: set[str] = set()
    for node in nodes:
        kind = node.get("type")
        types |= {kind} if isinstance(kind, str) else set(kind or ())
        if node.get("x-kubernetes-int-or-string"):
            types.add("integer")
    return "integer" in types and "number" not in types


def _step(node: dict[str, Any], step: str | int) -> list[Any]:
    if isinstance(step, int):
        return [node.get("items")]
    properties = node.get("properties") or {}
    if step in properties:
        return [properties[step]]
    return [node.get("additionalProperties")]


def _expanded(node: Any, root: dict[str, Any]) -> list[dict[str, Any]]:
    """`node` and every schema it stands for: its `$ref`, its allOf, anyOf and
    oneOf alternatives (each once: a definition may refer to itself)."""
    out: list[dict[str, Any]] = []
    seen: set[int] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if not isinstance(item, dict) or id(item) in seen:
            continue
        seen.add(id(item))
        out.append(item)
        ref = item.get("$ref")
        if isinstance(ref, str) and ref.startswith(_DEFS):
            stack.append((root.get("$defs") or {}).get(ref[len(_DEFS) :]))
        for key in ("allOf", "anyOf", "oneOf"):
            stack.extend(item.get(key) or ())
    return out


def _set(body: Any, path: DataPath, value: int) -> None:
    node = body
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
