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

from collections.abc import Iterable, Mapping
from typing import Any

from kgen.check.schema_places import integer_at, object_schemas, whole_floats
from kgen.errors import DataPath
from kgen.render.base import Manifest
from kgen.spec.patches import ObjectPatch


def whole_numbers(
    objects: list[Manifest],
    patches: Iterable[ObjectPatch],
    *,
    spec_failed: bool,
    target: str,
    version: str,
    crds: Mapping[Any, Any],
) -> list[Manifest]:
    """`objects` with each whole float a patch wrote into an integer field made an
    int, in place (the bodies are the patches' own copies). The bodies are read only
    where one of `patches` (those applied) may have written a float, most write none,
    or where the spec failed its checks, so its render may hold one (a wrong-type
    error) that a patched object's rules would quote."""
    if not spec_failed and not may_write_float(patches):
        return objects
    for manifest in objects:
        if manifest.patched is None:
            continue
        floats = list(whole_floats(manifest.body))
        if not floats:
            continue
        schemas = object_schemas(manifest, target=target, version=version, crds=crds)
        for path, value in floats:
            if any(integer_at(schema, path) for schema in schemas):
                _set(manifest.body, path, int(value))
    return objects


def may_write_float(patches: Iterable[ObjectPatch]) -> bool:
    """Whether a float is among the values of `patches`, or one of them copies or
    moves a value, which may carry a float from where any number goes (a quantity)
    into an integer field. Without either, the patches put no float where the render
    had none, and a render of a spec that passed its checks holds none in an integer
    field: the spec refuses one in its own fields and core objects (wrong-type)."""
    values: list[Any] = []
    for patch in patches:
        if patch.merge is not None:
            values.append(patch.merge)
        for op in patch.ops or ():
            if op.op in ("copy", "move"):
                return True
            values.append(op.value)
    while values:
        item = values.pop()
        kind = type(item)
        if kind is dict:
            values.extend(item.values())
        elif kind is list:
            values.extend(item)
        elif kind is float:
            return True
    return False


def _set(body: Any, path: DataPath, value: int) -> None:
    node = body
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
