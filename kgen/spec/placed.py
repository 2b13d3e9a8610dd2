"""Where a key written at the wrong level belongs: a field of a model nested in the spec.

`backoffLimit:` at a job's top level is no typo of `affinity`: it is runPolicy's field.
The paths are read from the models themselves (every nested model a spec holds: runPolicy,
roles.<role>, resources, ...), so a field added to a model is found without a table.
Lists are not entered: `name` is a field of every env entry, and pointing a stray `name`
there would mislead more than it helps.
"""

from __future__ import annotations

import functools
import typing
from typing import Any

from pydantic import BaseModel

from kgen.errors import format_path
from kgen.spec.keys import (
    allowed_hint,
    allowed_keys,
    model_at,
    spelled_like,
    unwrap,
)

# Models nest three deep at most (runPolicy.schedulingPolicy.queue, roles.<role>.resources.gpu);
# the bound also ends a model that holds itself.
_MAX_DEPTH = 4
# A placeholder for the keys the user names: the roles of a kind, the entries of a map.
_ROLE = "<role>"
_ENTRY = "<name>"


@functools.lru_cache(maxsize=4096)
def unknown_key_hint(
    key: str, root: type[BaseModel], parent: tuple[str | int, ...]
) -> str | None:
    """The hint for `key`, unknown at `parent` in `root`: where it belongs if it is a
    field elsewhere, else the key it is a slip of (beside it, then nested), else the
    keys allowed there."""
    placed = placed_hint(key, root, parent) or _patch_hint(key, root, parent)
    if placed is not None:
        return placed
    here = model_at(root, parent)
    renamed: dict[str, str] = getattr(here, "renamed_keys", {})
    if key in renamed:
        return renamed[key]
    allowed = allowed_keys(root, parent)
    close = spelled_like(key, allowed)
    if close is not None:
        return f"did you mean '{close}'?"
    nested = nested_close(key, here) if here is not None else None
    return nested or allowed_hint(tuple(allowed))


def _patch_hint(
    key: str, root: type[BaseModel], parent: tuple[str | int, ...]
) -> str | None:
    """A job field at the top of an overlay (`nodeSelector:` beside `description:`):
    an overlay's partial job spec is its `patch`."""
    if parent or "patch" not in root.model_fields:
        return None
    from kgen.spec.job import JobSpec

    if key != "roles" and key not in allowed_keys(JobSpec, ()):
        return None
    return (
        f"{key} is a job field: an overlay sets it under patch (`patch: {{{key}: …}}`)"
    )


def placed_hint(
    key: str, root: type[BaseModel], parent: tuple[str | int, ...]
) -> str | None:
    """Where `key`, unknown at `parent` in `root`, is a field; None if nowhere."""
    here = model_at(root, parent)
    if here is not None and (found := _placed(key, here)) is not None:
        return found
    if (found := _beside(key, root, parent)) is not None:
        return found
    if parent:
        found = _placed(key, root)
        if found is not None:
            return f"{found} (from the top of the spec)"
    return None


def _beside(
    key: str, root: type[BaseModel], parent: tuple[str | int, ...]
) -> str | None:
    """Where `key` is a field of a mapping that holds the one it is written in, the
    nearest: `mountPath` under a volume's `create` is the volume's own."""
    for depth in range(len(parent) - 1, -1, -1):
        above = parent[:depth]
        if key in allowed_keys(root, above):
            inside = parent[depth]
            return f"{key} belongs beside {inside}, not inside it: {format_path((*above, key))}"
    return None


def _placed(key: str, model: type[BaseModel]) -> str | None:
    paths = nested_keys(model).get(key)
    if not paths:
        return None
    shown = " or ".join(".".join(path) for path in paths)
    if _ROLE in paths[0]:
        return f"{key} is set per role: {shown}"
    return f"{key} belongs under {'.'.join(paths[0][:-1])}: {shown}"


def nested_close(key: str, model: type[BaseModel]) -> str | None:
    """A nested field spelled close to `key`, or that `key` abbreviates (`ttl`), by its path."""
    nested = nested_keys(model)
    names = list(nested)
    found = spelled_like(key, names)
    close = [found] if found else []
    if not close and len(key) >= 3:
        close = [name for name in names if name.lower().startswith(key.lower())][:1]
    if not close:
        return None
    return f"did you mean '{'.'.join(nested[close[0]][0])}'?"


@functools.cache
def nested_keys(model: type[BaseModel]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """Each key of the models nested in `model` (not its own), with its shortest paths."""
    found: dict[str, list[tuple[str, ...]]] = {}
    depth_of: dict[str, int] = {}
    level: list[tuple[type[BaseModel], tuple[str, ...]]] = [(model, ())]
    for depth in range(_MAX_DEPTH):
        below: list[tuple[type[BaseModel], tuple[str, ...]]] = []
        for current, prefix in level:
            for name, child in _children(current):
                path = (*prefix, name)
                # Only the shallowest places: `gpu` is resources.gpu, and per role too.
                if depth and depth_of.setdefault(name, depth) == depth:
                    found.setdefault(name, []).append(path)
                nested = _nested_model(child)
                if nested is not None:
                    below.append((nested[0], (*path, *nested[1])))
        level = below
    return {name: tuple(paths) for name, paths in found.items()}


def _children(model: type[BaseModel]) -> list[tuple[str, Any]]:
    """The keys of `model` and their types; a kind's roles (all Roles) collapse to one."""
    fields = [
        (info.alias or name, info.annotation)
        for name, info in model.model_fields.items()
    ]
    if fields and all(_is_role(unwrap(annotation)) for _, annotation in fields):
        return [(_ROLE, fields[0][1])]
    return fields


def _is_role(annotation: Any) -> bool:
    return (
        isinstance(annotation, type) and getattr(annotation, "_is_role", False) is True
    )


def _nested_model(annotation: Any) -> tuple[type[BaseModel], tuple[str, ...]] | None:
    """The model a field holds, directly or as a map's values; lists are not entered."""
    annotation = unwrap(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, ()
    if typing.get_origin(annotation) is dict:
        values = unwrap(typing.get_args(annotation)[1])
        if isinstance(values, type) and issubclass(values, BaseModel):
            return values, (_ENTRY,)
    return None
