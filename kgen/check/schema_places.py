"""The schemas an object is held to, and what they say of one place in it: for
kgen.patch.integers, kgen.patch.quantities and kgen.patch.times, which read what a patch wrote where
the output check's schemas cannot tell them, and kgen.check.core_formats."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from kgen.errors import DataPath, value_in
from kgen.render.base import Manifest

_DEFS = "#/$defs/"
_INT64 = 2**63
QUANTITY = _DEFS + "io.k8s.apimachinery.pkg.api.resource.Quantity"
_META = _DEFS + "io.k8s.apimachinery.pkg.apis.meta.v1."
# The two time types, told apart by name: both are `format: date-time`, and a
# MicroTime takes six digits of fraction (kgen.check.core_times).
TIMES = {_META + "Time": "time", _META + "MicroTime": "micro-time"}


def patched_strings(
    objects: list[Manifest],
    *,
    target: str,
    version: str,
    where: Callable[[DataPath], bool] = lambda _path: True,
    wanted: Callable[[str], bool] = lambda _value: True,
) -> Iterator[tuple[Manifest, DataPath, str, list[dict[str, Any]]]]:
    """Each string a patch wrote at a place `where` keeps that `wanted` keeps, in the
    order written, with the schemas its object is held to (made once an object, and
    only for one with such a string): what kgen.patch.quantities and kgen.patch.times
    look up."""
    for manifest in objects:
        if manifest.patched is None:
            continue
        written = [
            (path, value)
            for path in manifest.patched.marks
            if where(path)
            and isinstance(value := value_in(manifest.body, path), str)
            and wanted(value)
        ]
        if not written:
            continue
        schemas = object_schemas(manifest, target=target, version=version, crds={})
        for path, value in written:
            yield manifest, path, value, schemas


def object_schemas(
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


def integer_at(root: dict[str, Any], path: DataPath) -> bool:
    """Whether the place at `path` takes an integer and no other number."""
    types: set[str] = set()
    for node in nodes_at(root, path):
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


def expanded(node: Any, root: dict[str, Any]) -> list[dict[str, Any]]:
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


# The schemas a place is held to, by schema and path with every list index as 0 (a
# list's items share one schema): 3,000 env entries a patch merges are one walk, not
# 3,000. Bounded: cleared past so many schemas or places.
_KNOWN: dict[int, tuple[dict[str, Any], dict[DataPath, list[dict[str, Any]]]]] = {}
_MAX_KNOWN = 10_000


def nodes_at(root: dict[str, Any], path: DataPath) -> list[dict[str, Any]]:
    """Every schema of `root` the place at `path` is held to (none: no such place)."""
    key = tuple(0 if isinstance(step, int) else step for step in path)
    entry = _KNOWN.get(id(root))
    if entry is None or entry[0] is not root:
        if len(_KNOWN) >= 64:
            _KNOWN.clear()
        entry = _KNOWN[id(root)] = (root, {})
    known = entry[1]
    found = known.get(key)
    if found is None:
        if len(known) >= _MAX_KNOWN:
            known.clear()
        found = known[key] = _nodes_at(root, key)
    return found


def _nodes_at(root: dict[str, Any], path: DataPath) -> list[dict[str, Any]]:
    nodes = expanded(root, root)
    for step in path:
        nodes = [
            below
            for node in nodes
            for sub in _step(node, step)
            for below in expanded(sub, root)
        ]
        if not nodes:
            break
    return nodes


def quantity_at(root: dict[str, Any], path: DataPath) -> bool:
    """Whether the place at `path` is a core Quantity."""
    return any(node.get("$ref") == QUANTITY for node in nodes_at(root, path))


def time_at(root: dict[str, Any], path: DataPath) -> str | None:
    """ "time" or "micro-time" where the place at `path` is a core time, else None."""
    for node in nodes_at(root, path):
        held = TIMES.get(node.get("$ref", ""))
        if held is not None:
            return held
    return None


def whole_floats(node: Any, path: DataPath = ()) -> list[tuple[DataPath, float]]:
    """Each float in `node` that is a whole number int64 holds, with its path, in
    the order written. Paths are made only where a float is: this reads every
    spec's core objects (kgen.check.core_formats), nearly all without one."""
    if not _has_float(node):
        return []
    if isinstance(node, dict):
        return [f for k, v in node.items() for f in whole_floats(v, (*path, k))]
    if isinstance(node, list):
        return [f for i, v in enumerate(node) for f in whole_floats(v, (*path, i))]
    if node.is_integer() and abs(node) < _INT64:
        return [(path, node)]
    return []


def _has_float(node: Any) -> bool:
    stack = [node]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float:
            return True
    return False
