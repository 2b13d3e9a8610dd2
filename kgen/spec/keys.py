"""The keys a model allows at a path, and which of them an unknown key is a slip of:
read by validation's hints (kgen.spec.validate, kgen.spec.placed), the pod rules and
the core definitions' checks."""

from __future__ import annotations

import difflib
import functools
import types
import typing
from typing import Any

from pydantic import BaseModel

from kgen.errors import DataPath


def suggest(key: str, allowed: list[str]) -> str | None:
    """ "did you mean" for a near miss, else the allowed keys."""
    return _suggest(key, tuple(allowed))


@functools.lru_cache(maxsize=65536)
def _suggest(key: str, allowed: tuple[str, ...]) -> str | None:
    # Cached: the same unknown key comes back once per environment.
    close = spelled_like(key, allowed)
    return f"did you mean '{close}'?" if close else allowed_hint(allowed)


# How alike a key and a suggestion must be (difflib's ratio). At 0.6 `backoffLimit` got
# "did you mean 'affinity'?" and `limits` 'lint'; real slips (`workdir` for workingDir,
# `imge`, `nodeselector`) score 0.7 and more.
CLOSE = 0.7


def spelled_like(
    key: str, allowed: typing.Iterable[str], *, cutoff: float = CLOSE
) -> str | None:
    """The one of `allowed` that `key` is a slip of, if any."""
    allowed = list(allowed)
    # Keys far longer than any allowed one cannot be near misses (and difflib's cost
    # grows with them).
    if len(key) > 2 * max(map(len, allowed), default=0):
        return None
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=cutoff)
    return close[0] if close else None


def known_hint(name: str, known: list[str], what: str) -> str:
    """The names `name` is not one of: the one it is a slip of first, if any."""
    listed = f"known {what}: " + ", ".join(known)
    close = spelled_like(name, known)
    return f"did you mean '{close}'? ({listed})" if close else listed


def allowed_hint(allowed: tuple[str, ...]) -> str | None:
    return ("allowed keys: " + ", ".join(sorted(allowed))) if allowed else None


def allowed_keys(model: type[BaseModel], path: DataPath) -> list[str]:
    """The keys a mapping at `path` inside `model` may hold, by their YAML names."""
    current = model_at(model, path)
    if current is None:
        return []
    return [field.alias or name for name, field in current.model_fields.items()]


def model_at(model: type[BaseModel], path: DataPath) -> type[BaseModel] | None:
    """The model of the mapping at `path` inside `model`; None if it is none."""
    current: Any = model
    for part in path:
        current = _step(current, part)
        if current is None:
            return None
    current = unwrap(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return current
    return None


def _step(annotation: Any, part: str | int) -> Any:
    annotation = unwrap(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        for name, field in annotation.model_fields.items():
            if (field.alias or name) == part:
                return field.annotation
        return None
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is list and isinstance(part, int):
        return args[0]
    if origin is dict and args:
        return args[1]
    return None


def unwrap(annotation: Any) -> Any:
    """Strip Optional, Annotated and the like down to the model or container type."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(annotation) if a is not type(None)]
            annotation = members[0]
        else:
            return annotation
