"""Strategic merge of a partial object into one rendered object, as `kubectl patch
--type strategic` does for the lists kgen renders: maps merge, `null` deletes a key,
`$patch: delete` deletes a map or a list item and `$patch: replace` replaces a map;
the pod lists below merge item by item on their merge key, every other list is
replaced whole."""

from __future__ import annotations

import copy
from typing import Any

from kgen.errors import DataPath, Problem
from kgen.patch.context import Patching

DIRECTIVE = "$patch"
# The `patchMergeKey` of each list kgen renders in a pod, from k8s.io/api core/v1
# types.go (tag v0.31.0): PodSpec.containers, initContainers, ephemeralContainers,
# volumes, imagePullSecrets, schedulingGates, resourceClaims (name), hostAliases (ip),
# topologySpreadConstraints (topologyKey); Container.env (name), volumeMounts
# (mountPath), volumeDevices (devicePath), ports (containerPort); ServiceSpec.ports
# (port). Lists without one (tolerations, args, envFrom) are replaced, as there.
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "volumes": "name",
    "imagePullSecrets": "name",
    "schedulingGates": "name",
    "resourceClaims": "name",
    "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey",
    "env": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "ports": "containerPort",
}
_SERVICE_PORTS = ("Service", ("spec", "ports"))


def merge_into(patching: Patching, patch: dict[str, Any]) -> Problem | None:
    """Merge `patch` (the patch's `merge:`) into the object."""
    found = _identity(patching, patch)
    if found is not None:
        return found
    return _merge_map(patching, patching.body, patch, (), ("merge",))


def _identity(patching: Patching, patch: dict[str, Any]) -> Problem | None:
    """A merge may repeat the object's identity, as kustomize's patches do, but not
    change or delete it."""
    if DIRECTIVE in patch:
        return _refused(patching, ("merge", DIRECTIVE), "the whole object")
    meta = patch.get("metadata", {})
    if not isinstance(meta, dict) or DIRECTIVE in meta:
        return _refused(patching, ("merge", "metadata"), "metadata")
    for path in (
        ("apiVersion",),
        ("kind",),
        ("metadata", "name"),
        ("metadata", "namespace"),
    ):
        holder = patch if len(path) == 1 else meta
        if path[-1] in holder and holder[path[-1]] != _get(patching.body, path):
            return _refused(patching, ("merge", *path), ".".join(path))
    return None


def _refused(patching: Patching, at: DataPath, what: str) -> Problem:
    return patching.problem(
        at,
        f"the merge would change {what} of {patching.what}, which names the object",
        "patch-identity",
        "kgen names the object, its file and its index entry; a merge may repeat"
        " apiVersion, kind, name and namespace but not change them",
        at_key=True,
    )


def _get(body: dict[str, Any], path: DataPath) -> Any:
    node: Any = body
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _merge_map(
    patching: Patching,
    target: dict[str, Any],
    patch: dict[str, Any],
    out: DataPath,
    src: DataPath,
) -> Problem | None:
    for key, value in patch.items():
        if key == DIRECTIVE:
            continue
        if key.startswith("$"):
            return _unsupported(patching, (*src, key), key)
        here, at = (*out, key), (*src, key)
        if value is None or (
            isinstance(value, dict) and value.get(DIRECTIVE) == "delete"
        ):
            if key in target:
                del target[key]
                patching.marks.one(here, patching.where((*patching.base, *at)))
            continue
        problem = _merge_value(patching, target, key, value, here, at)
        if problem is not None:
            return problem
    return None


def _merge_value(
    patching: Patching,
    target: dict[str, Any],
    key: str,
    value: Any,
    out: DataPath,
    src: DataPath,
) -> Problem | None:
    current = target.get(key)
    if isinstance(value, dict):
        directive = value.get(DIRECTIVE)
        if directive not in (None, "replace", "merge"):
            return _unsupported(
                patching, (*src, DIRECTIVE), f"{DIRECTIVE}: {directive}"
            )
        if isinstance(current, dict) and directive != "replace":
            return _merge_map(patching, current, value, out, src)
        value = {k: v for k, v in value.items() if k != DIRECTIVE}
    elif isinstance(value, list) and isinstance(current, list):
        merge_key = _merge_key(patching.kind, out)
        if merge_key is not None:
            return _merge_list(patching, current, value, merge_key, out, src)
    return _write(patching, target, key, value, out, src)


def _write(
    patching: Patching,
    target: Any,
    key: Any,
    value: Any,
    out: DataPath,
    src: DataPath,
) -> Problem | None:
    if _unchanged(target, key, value):
        return None  # as it was (a merge key, a repeated name): nothing written
    clean = _without_directives(value)
    if not patching.budget.take(clean):
        return patching.too_large(src)
    target[key] = clean
    patching.marks.value(
        out, clean, lambda rest: patching.where((*patching.base, *src, *rest))
    )
    return None


def _unchanged(target: Any, key: Any, value: Any) -> bool:
    return (
        isinstance(target, dict)
        and not isinstance(value, dict | list)
        and key in target
        and type(target[key]) is type(value)
        and target[key] == value
    )


def _merge_list(
    patching: Patching,
    current: list[Any],
    patch: list[Any],
    merge_key: str,
    out: DataPath,
    src: DataPath,
) -> Problem | None:
    """Deletions first, then merges in order, as apimachinery's strategicpatch does;
    items found through an index by key, so a long list costs its length."""
    for index, item in enumerate(patch):
        if not isinstance(item, dict) or _key(item.get(merge_key)) is None:
            return patching.problem(
                (*src, index),
                f"an item merged into {out[-1]} needs its merge key '{merge_key}'",
                "patch-merge",
                f"name the item to change with '{merge_key}' (Kubernetes merges"
                f" {out[-1]} by it); to replace the whole list, use ops",
            )
    _delete_items(patching, current, patch, merge_key, out, src)
    where: dict[Any, int] = {}
    for position, old in enumerate(current):
        key = _key(old.get(merge_key)) if isinstance(old, dict) else None
        if key is not None:
            where.setdefault(key, position)
    for index, item in enumerate(patch):
        if item.get(DIRECTIVE) == "delete":
            continue
        at, found = (*src, index), where.get(_key(item[merge_key]))
        if found is None:
            current.append(None)
            found = where[_key(item[merge_key])] = len(current) - 1
            problem = _write(patching, current, found, item, (*out, found), at)
        else:
            problem = _merge_map(patching, current[found], item, (*out, found), at)
        if problem is not None:
            return problem
    return None


def _delete_items(
    patching: Patching,
    current: list[Any],
    patch: list[Any],
    merge_key: str,
    out: DataPath,
    src: DataPath,
) -> None:
    """Remove the items `$patch: delete` names (each at most once, the first)."""
    doomed = {
        _key(item[merge_key]): index
        for index, item in enumerate(patch)
        if item.get(DIRECTIVE) == "delete"
    }
    if not doomed:
        return
    kept, gone = [], []
    for position, old in enumerate(current):
        key = _key(old.get(merge_key)) if isinstance(old, dict) else None
        index = doomed.pop(key, None) if key is not None else None
        if index is None:
            kept.append(old)
        else:
            # Shown by explain as removed, at the index the item had.
            patching.marks.removed.append(
                ((*out, position), patching.where((*patching.base, *src, index)))
            )
            gone.append(position)
    current[:] = kept
    for position in reversed(gone):
        # The records of the items after it move down with them.
        patching.marks.drop((*out, position))


def _key(value: Any) -> Any:
    """A merge key's value, if it can be one (a string or a number, not a bool)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    return value


def _merge_key(kind: str, out: DataPath) -> str | None:
    if (kind, out) == _SERVICE_PORTS:
        return "port"
    return MERGE_KEYS.get(str(out[-1])) if out else None


def _without_directives(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_directives(v) for k, v in value.items() if k != DIRECTIVE}
    if isinstance(value, list):
        return [_without_directives(v) for v in value]
    return copy.copy(value)


def _unsupported(patching: Patching, at: DataPath, what: str) -> Problem:
    return patching.problem(
        at,
        f"'{what}' is not a directive kgen applies",
        "patch-merge",
        f"use {DIRECTIVE}: delete or {DIRECTIVE}: replace, or ops for anything else",
        at_key=True,
    )
