"""Values under a secret's name (kgen.rules.secret_names): a validation message says
what is wrong with one, never what it is."""

from __future__ import annotations

from typing import Any

from kgen.errors import DataPath, unquoted
from kgen.rules.secret_names import holds_secret


class Hidden:
    """A value whose name says it is a secret: messages say what it is, never what."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __str__(self) -> str:
        return "***"

    def hide(self, message: str) -> str:
        # The checks in kgen.spec.fields quote the value they refuse.
        return unquoted(message, self.value)


def secret(data: Any, loc: DataPath) -> bool:
    """Whether the value at `loc` is under a secret's name, or holds one."""
    return holds_secret(loc, lambda path: value_at(data, path))


def value_at(data: Any, path: DataPath) -> Any:
    """The value at `path` in `data`, or None; parts that name no member (pydantic's
    union members, `function-after[...]`) are skipped."""
    for part in path:
        found = _member(data, part)
        if found is not _NONE:
            data = found
        elif not isinstance(part, str):
            return None
    return data


_NONE = object()


def _member(data: Any, part: str | int) -> Any:
    if isinstance(data, dict):
        return data.get(part, _NONE)
    if isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
        return data[part]
    return _NONE
