"""What a user CRD's schema costs to check an object against, bounded before it is
compiled.

A `$ref` reuses a schema without repeating its text, so 1.4 KB of `anyOf`s that each
refer twice to the next stand for 2^16 schemas, and a validator walks all of them
(and, for an object that fails every branch, builds each branch's errors inside the
`anyOf`'s: 2.6 GB and more than 20 s). No file limit bounds that, and neither does the
YAML alias budget: `$ref` is a graph the loader never sees. So the schema is measured
as a validator walks it from its root, every `$ref` followed (definitions count where
they are used; a reference back into a schema already being walked counts once, as the
validator recurses into it only as far as the object goes), and refused at the first
`$ref` or `anyOf`/`oneOf` past a bound: 20,000 schemas, 1,000 of them under
`anyOf`/`oneOf` (a failed one reports every branch: 2^14 written out take 1.6 s), or
2,000 references (compiling follows them in more than linear time).

The bounds are ten times what the upstream operators' CRDs hold (up to 1,914 schemas,
116 of them inside `anyOf`/`oneOf`, and no `$ref`: Kubernetes accepts none in a CRD,
kubernetes/kubernetes#54579). The walk stops at the bound, so measuring costs no
more than the bound, whatever the schema's shape.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple
from urllib.parse import unquote

from kgen.errors import DataPath

MAX_SCHEMAS = 20_000
MAX_ALTERNATIVES = 1_000
# Compiling follows each `$ref`, in more than linear time: 10,000 in a row take 0.3 s,
# 20,000 1.5 s.
MAX_REFS = 2_000
# Keywords whose values are data, not schemas: a "$ref" inside them is no reference.
DATA_KEYWORDS = frozenset(("enum", "const", "default", "example", "examples"))
# Keywords whose values map names (of properties, definitions) to schemas: a property
# may be called `default` or `$ref`.
NAME_KEYWORDS = frozenset(
    ("properties", "patternProperties", "definitions", "$defs", "dependencies")
)
# Alternatives: an object that fails them all fails with every branch's errors.
_ALTERNATIVES = frozenset(("anyOf", "oneOf"))
# Schemas that apply only where a `$ref` points to them: counted there, each time.
_DEFINITIONS = frozenset(("definitions", "$defs"))


class TooComplex(NamedTuple):
    """Where the schema grows past a bound, and what the message says about it."""

    path: DataPath
    reason: str


class _Entry(NamedTuple):
    node: Any
    # The node's path in the file while no `$ref` or alternative led to it; after,
    # the path of the first that did (where a refusal points).
    path: DataPath
    literal: bool
    names: bool  # the node maps names to schemas
    alternative: bool  # under an anyOf/oneOf
    ref: bool = False  # the target of a `$ref`


def too_complex(schema: dict[str, Any], where: DataPath) -> TooComplex | None:
    """None, or where `schema` (found at `where` in its file) grows past a bound."""
    schemas = alternatives = refs = 0
    # The `$ref` targets being walked, by identity; the root is being walked from the start.
    walking: set[int] = {id(schema)}
    stack: list[_Entry | int] = [_Entry(schema, where, True, False, False)]
    while stack:
        entry = stack.pop()
        if isinstance(entry, int):  # every schema under a `$ref` target was walked
            walking.discard(entry)
            continue
        if entry.ref:
            if id(entry.node) in walking:
                continue
            refs += 1
            if refs > MAX_REFS:
                return TooComplex(entry.path, _more_than(MAX_REFS, "references"))
            walking.add(id(entry.node))
            stack.append(id(entry.node))
        if isinstance(entry.node, dict):
            schemas += 1
            alternatives += entry.alternative
            if schemas > MAX_SCHEMAS:
                return TooComplex(entry.path, _more_than(MAX_SCHEMAS, "schemas"))
            if alternatives > MAX_ALTERNATIVES:
                what = "schemas under anyOf or oneOf"
                return TooComplex(entry.path, _more_than(MAX_ALTERNATIVES, what))
        # Pushed last first, so the schema is walked in the file's order.
        stack += reversed(_children(entry, schema))
    return None


def _more_than(bound: int, what: str) -> str:
    return f"with every $ref followed, it holds more than {bound:,} {what}"


def _children(entry: _Entry, root: Any) -> list[_Entry]:
    # Only mappings and lists hold schemas: the rest (descriptions, types) is not walked.
    node = entry.node
    if isinstance(node, list):
        return [
            _child(entry, i, item)
            for i, item in enumerate(node)
            if isinstance(item, dict | list)
        ]
    out: list[_Entry] = []
    for key, value in node.items():
        if not isinstance(value, dict | list | str):
            continue
        if entry.names:
            out.append(_child(entry, key, value))
        elif key == "$ref" and isinstance(value, str):
            target = resolve(root, value)
            if isinstance(target, dict | list):
                path = (*entry.path, key) if entry.literal else entry.path
                out.append(_Entry(target, path, False, False, entry.alternative, True))
        elif isinstance(value, str):
            continue
        elif key in _ALTERNATIVES and isinstance(value, list):
            out.append(_child(entry, key, value, alternative=True))
        elif key not in DATA_KEYWORDS and key not in _DEFINITIONS:
            out.append(_child(entry, key, value, names=key in NAME_KEYWORDS))
    return out


def _child(
    entry: _Entry,
    key: str | int,
    value: Any,
    *,
    names: bool = False,
    alternative: bool = False,
) -> _Entry:
    path = (*entry.path, key) if entry.literal else entry.path
    # The first alternative on the way is where a refusal points from now on.
    literal = entry.literal and not alternative
    return _Entry(value, path, literal, names, entry.alternative or alternative)


_MISSING = object()


def _index(part: str) -> int:
    """A JSON pointer's list index (RFC 6901: ASCII digits, no leading zero), else
    one past any list. str.isdigit() also takes '²', which int() refuses, and '٣';
    and int() refuses more than 4,300 digits."""
    if not (part.isascii() and part.isdigit()) or len(part) > 18:
        return sys.maxsize
    return int(part) if part == "0" or part[0] != "0" else sys.maxsize


def resolve(schema: Any, ref: str) -> Any:
    """What an in-schema `$ref` (`#` or `#/` and a JSON pointer, RFC 6901,
    URI-escaped) names in `schema`, or None."""
    if ref == "#":
        return schema
    if not ref.startswith("#/"):
        return None
    found = schema
    for part in ref[2:].split("/"):
        part = unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(found, dict):
            found = found.get(part, _MISSING)
        elif isinstance(found, list) and _index(part) < len(found):
            found = found[_index(part)]
        else:
            return None
        if found is _MISSING:
            return None
    return found
