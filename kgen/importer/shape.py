"""`kgen import`, the shape of what it reads, checked before it is read: manifests come
from anywhere, and a replica spec that is `null`, containers that are a string or a
spec that is a list is the input's fault, reported at its own line with the shape the
API gives it (`spec.pytorchReplicaSpecs.Master must be a mapping (a replica spec), not
null`), never as the exception reading it would raise.

Only what import reads is checked, as far as it reads it (a probe, affinity, passed on
whole, are the build's to check). A missing or null field is left out, as the API server
reads it, except where the API has none (a null replica spec, a null container). The
shapes themselves are in kgen.importer.api_shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kgen.errors import DataPath


@dataclass(frozen=True)
class Shape:
    """What a value must be: its type (`mapping`, `list`, `string`, `integer`), what it
    is in the API's words, the shapes of its known fields (a mapping's) or of each of
    its items or values, the fields it must have (`a|b`: one of them), and whether it
    may be null. A `count` is a whole number, or text of one (a GPU limit)."""

    type: str
    what: str = ""
    fields: dict[str, Shape] = field(default_factory=dict)
    each: Shape | None = None
    needs: tuple[str, ...] = ()
    null: bool = True


def mapping(what: str = "", *, needs: tuple[str, ...] = (), **fields: Shape) -> Shape:
    return Shape("mapping", what, fields, needs=needs)


def listed(item: Shape, what: str = "") -> Shape:
    """A list of `item`s, none of them null."""
    return Shape("list", what, each=required(item))


def by_name(value: Shape, what: str) -> Shape:
    """A mapping of any string keys to `value`s (a role's replica specs by role)."""
    return Shape("mapping", what, each=value)


def required(shape: Shape) -> Shape:
    return Shape(
        shape.type, shape.what, shape.fields, shape.each, shape.needs, null=False
    )


class Wrong(NamedTuple):
    """Where a value does not have its shape, the field the message names (`at`, or
    the mapping whose key is not text), and what the message says of it."""

    at: DataPath
    named: DataPath
    says: str


def first_wrong(value: Any, shape: Shape, path: DataPath = ()) -> Wrong | None:
    """The first place in `value` (depth first, in the input's order) that does not have
    `shape`, and what it should be; None when all of it has."""
    if value is None:
        return None if shape.null else Wrong(path, path, _expected(shape, value))
    if not _is(value, shape.type):
        return Wrong(path, path, _expected(shape, value))
    if isinstance(value, dict):
        return _first_in_mapping(value, shape, path)
    if isinstance(value, list) and shape.each is not None:
        for index, item in enumerate(value):
            wrong = first_wrong(item, shape.each, (*path, index))
            if wrong is not None:
                return wrong
    return None


def _first_in_mapping(
    value: dict[Any, Any], shape: Shape, path: DataPath
) -> Wrong | None:
    for key, item in value.items():
        if not isinstance(key, str):
            return Wrong((*path, key), path, f"must have text keys, not {_a(key)}")
        inner = shape.fields.get(key) or shape.each
        wrong = first_wrong(item, inner, (*path, key)) if inner is not None else None
        if wrong is not None:
            return wrong
    missing = [
        key
        for key in shape.needs
        if all(value.get(one) is None for one in key.split("|"))
    ]
    if missing:
        needed = missing[0].replace("|", " or ")
        return Wrong(path, path, f"must have {needed} ({shape.what})")
    return None


def _is(value: Any, type_: str) -> bool:
    if type_ == "mapping":
        return isinstance(value, dict)
    if type_ == "list":
        return isinstance(value, list)
    if type_ == "string":
        return isinstance(value, str)
    if type_ == "count" and isinstance(value, str):
        return value.isascii() and value.isdigit()
    if type_ == "quantity":
        return isinstance(value, str | int | float) and not isinstance(value, bool)
    return isinstance(value, int) and not isinstance(value, bool)


def _expected(shape: Shape, value: Any) -> str:
    what = f" ({shape.what})" if shape.what else ""
    if shape.type == "list" and shape.what:
        what = f" {shape.what}"  # a list of containers
    return f"must be {_ARTICLE[shape.type]}{what}, not {_a(value)}"


_ARTICLE = {
    "count": "a whole number",
    "mapping": "a mapping",
    "list": "a list",
    "string": "a string",
    "integer": "an integer",
    "quantity": "a quantity (text or a number)",
}


def _a(value: Any) -> str:
    """What a YAML value is, never the value itself (messages name fields, not values)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "a mapping"


class Unreadable(Exception):
    """What import cannot read, at `path` of the document it reads: raised where the
    shape alone does not tell (kgen.kinds.trainer.view), reported at its line."""

    def __init__(self, path: DataPath, message: str) -> None:
        super().__init__(message)
        self.path, self.message = path, message
