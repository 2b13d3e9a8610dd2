"""Load YAML into plain data plus the 1-based position of every key and value.

ruamel's C parser composes the node graph with marks (about 7x faster than round-trip
loading); this module constructs plain dicts, lists and scalars from it, so it alone
decides what input is acceptable: one document per file, no duplicate keys, only the
core-schema tags, and a bounded expansion of aliases (no "billion laughs").
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    CollectionEndEvent,
    MappingStartEvent,
    NodeEvent,
    SequenceStartEvent,
)
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.tag import Tag

from kgen.errors import DataPath, Problem

# Limits that keep a hostile file from exhausting memory or time.
MAX_FILE_BYTES = 1024 * 1024
MAX_NODES = 100_000
MAX_DEPTH = 100

_TAG = "tag:yaml.org,2002:"


class Origin(NamedTuple):
    """Where a value came from: file, value position and key position (1-based)."""

    file: str
    line: int
    column: int
    key_line: int
    key_column: int


Positions = dict[DataPath, Origin]


@dataclass
class Document:
    """One loaded YAML file: its data (None when empty) and the origin of every node."""

    file: str
    data: Any
    positions: Positions = field(default_factory=dict)

    def origin(self, path: DataPath) -> Origin:
        """The origin of `path`, or of its deepest existing ancestor."""
        return nearest_origin(self.positions, path, self.file)


def nearest_origin(positions: Positions, path: DataPath, file: str) -> Origin:
    for cut in range(len(path), -1, -1):
        found = positions.get(path[:cut])
        if found is not None:
            return found
    return Origin(file, 1, 1, 1, 1)


class _Budget:
    __slots__ = ("nodes",)

    def __init__(self) -> None:
        self.nodes = 0


class _LoadError(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def load_file(path: Path, display: str) -> tuple[Document | None, list[Problem]]:
    """Read and load one file; `display` is the name problems carry (relative path)."""
    raw, problems = read_bounded(path, display)
    if raw is None:
        return None, problems
    return load_bytes(raw, display)


def read_bounded(
    path: str | os.PathLike[str], display: str
) -> tuple[bytes | None, list[Problem]]:
    """A file's bytes, never reading more than the size limit allows."""
    # Plain system calls: a project is a thousand small files, and a file object each
    # costs a third of the reading.
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            raw = b""
            while len(raw) <= MAX_FILE_BYTES:
                chunk = os.read(fd, MAX_FILE_BYTES + 1 - len(raw))
                if not chunk:
                    break
                raw += chunk
            size = len(raw) if len(raw) <= MAX_FILE_BYTES else os.fstat(fd).st_size
        finally:
            os.close(fd)
    except OSError as exc:
        return None, [Problem(f"cannot read file: {exc.strerror}", "io", file=display)]
    if len(raw) > MAX_FILE_BYTES:
        return None, [_too_large(display, size)]
    return raw, []


def _too_large(display: str, size: int) -> Problem:
    return Problem(
        f"file is {size} bytes, more than the limit of {MAX_FILE_BYTES}",
        "file-too-large",
        file=display,
        line=1,
        column=1,
        hint="a job spec or overlay is a few dozen lines; split it",
    )


def load_bytes(raw: bytes, display: str) -> tuple[Document | None, list[Problem]]:
    if len(raw) > MAX_FILE_BYTES:
        return None, [_too_large(display, len(raw))]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
            return None, [
                Problem(
                    "file is UTF-16; kgen reads UTF-8",
                    "yaml-encoding",
                    file=display,
                    line=1,
                    column=1,
                    hint="save the file as UTF-8",
                )
            ]
        line, column = _line_col(raw, exc.start)
        return None, [
            Problem(
                f"file is not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
                "yaml-encoding",
                file=display,
                line=line,
                column=column,
                hint="save the file as UTF-8",
            )
        ]
    return load_string(text, display)


def load_string(text: str, display: str) -> tuple[Document | None, list[Problem]]:
    """Like load_bytes, for text already decoded: a document, or the problem."""
    try:
        return load_text(text, display), []
    except _LoadError as exc:
        return None, [exc.problem]


class _Resolver(VersionedResolver):
    """ruamel's YAML 1.2 core resolution, with the per-scalar lookups done once per
    document and one shared Tag per type (a quarter of the load time otherwise)."""

    _table: dict[Any, list[tuple[str, Any]]] | None = None

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode:
            if implicit[0]:
                table = self._table
                if table is None:
                    # After the first node any %YAML directive has been read.
                    table = self._table = self.versioned_resolver
                candidates = table.get(value[0] if value else "", [])
                for tag, regexp in candidates + table.get(None, []):
                    if regexp.match(value):
                        return _tag(tag)
            return _tag(_TAG + "str")
        return _tag(_TAG + ("seq" if kind is SequenceNode else "map"))


_TAGS: dict[str, Tag] = {}


def _tag(name: str) -> Tag:
    found = _TAGS.get(name)
    if found is None:
        found = _TAGS[name] = Tag(suffix=name)
    return found


def _yaml() -> YAML:
    yaml = YAML(typ="safe", pure=False)
    yaml.Resolver = _Resolver
    return yaml


def load_text(text: str, display: str) -> Document:
    shallow = _nesting_bound(text) <= _SAFE_NESTING
    if shallow:
        # Imported here: the fast path reads this module's limits and scalar rules.
        from kgen.quick_load import quick_load

        quick = quick_load(text, display)
        if quick is not None:
            return Document(display, *quick)
    return full_load(text, display)


def full_load(text: str, display: str) -> Document:
    """load_text without the fast path: the path that words every problem, and the
    reference the fast path is tested against."""
    try:
        if _nesting_bound(text) > _SAFE_NESTING:
            _refuse_deep_nesting(text, display)
        node = _yaml().compose(text)
    except MarkedYAMLError as exc:
        raise _LoadError(_from_yaml_error(exc, display, text)) from None
    except ReaderError as exc:
        line, column = _text_line_col(text, exc.position)
        code = exc.character if isinstance(exc.character, int) else 0
        problem = Problem(
            f"character U+{code:04X} is not allowed in YAML",
            "yaml-syntax",
            file=display,
            line=line,
            column=column,
            hint="remove it; write control characters as escapes in double quotes (\\t, \\x07)",
        )
        raise _LoadError(problem) from None
    except YAMLError as exc:
        problem = Problem(
            f"YAML error: {exc}", "yaml-syntax", file=display, line=1, column=1
        )
        raise _LoadError(problem) from None
    except RecursionError:
        raise _LoadError(_too_deep(display, 1, 1)) from None
    doc = Document(display, None)
    if node is not None:
        sizes: dict[int, int] = {}
        if _measure(node, sizes, depth=0) > MAX_NODES:
            # Refuse before building anything: an alias bomb costs its node count.
            raise _LoadError(_expands_too_far(node, sizes, doc))
        doc.data = _construct(node, (), doc, _Budget(), depth=0)
    return doc


def _measure(node: Node, sizes: dict[int, int], *, depth: int) -> int:
    """How many values `node` expands to, aliases repeated (capped just past the
    limit), counted once per distinct node. Deeper than the depth limit counts as 0:
    _construct reports that, at the place it is."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    if depth > MAX_DEPTH:
        return 0
    total = 1
    if isinstance(node, SequenceNode):
        for item in node.value:
            total += _measure(item, sizes, depth=depth + 1)
    elif isinstance(node, MappingNode):
        for _key, value in node.value:
            total += _measure(value, sizes, depth=depth + 1)
    total = min(total, MAX_NODES + 1)
    sizes[id(node)] = total
    return total


def _expands_too_far(root: Node, sizes: dict[int, int], doc: Document) -> Problem:
    """The problem at the value where the count, in document order, passes the limit."""
    node, counted = root, 0
    while True:
        counted += 1
        if counted > MAX_NODES:
            break
        children = (
            node.value
            if isinstance(node, SequenceNode)
            else [value for _key, value in node.value]
        )
        for child in children:
            if counted + sizes.get(id(child), 0) <= MAX_NODES:
                counted += sizes.get(id(child), 0)
                continue
            node = child
            break
        else:  # pragma: no cover - the sizes say a child passes the limit
            break
    return _too_many_values(node, doc)


def _too_many_values(node: Node, doc: Document) -> Problem:
    mark = node.start_mark
    return Problem(
        f"document expands to more than {MAX_NODES} values",
        "yaml-too-large",
        file=doc.file,
        line=mark.line + 1,
        column=mark.column + 1,
        hint="aliases (*name) that repeat large anchors multiply; write it out",
    )


# ruamel's C composer recurses once per level of nesting (tens of thousands of levels
# overflow the C stack and kill the process) and its scanner is quadratic in flow depth
# (100,000 levels of '[' take minutes). Up to this many levels both are harmless.
_SAFE_NESTING = 1000


def _nesting_bound(text: str) -> int:
    """At least the nesting depth of `text`: every collection starts with '[', '{', '-'
    or '?', or is a block mapping, whose first key is followed by ':'."""
    return sum(text.count(c) for c in "[{-?:")


def _refuse_deep_nesting(text: str, display: str) -> None:
    """Read the events (not nodes) of a document that might nest deeper than is safe to
    compose, and raise at the first value deeper than MAX_DEPTH: the place _construct
    would report. Stops there, so its cost is linear whatever follows."""
    # Per open collection: the number of children seen so far, or -1 for a sequence
    # (children of a mapping alternate key, value; keys are not depth-checked).
    open_: list[int] = []
    for event in _yaml().parse(text):
        if isinstance(event, CollectionEndEvent):
            open_.pop()
            continue
        if not isinstance(event, NodeEvent):
            continue
        is_key = False
        if open_ and open_[-1] >= 0:
            is_key = open_[-1] % 2 == 0
            open_[-1] += 1
        if not is_key and len(open_) > MAX_DEPTH:
            mark = event.start_mark
            raise _LoadError(_too_deep(display, mark.line + 1, mark.column + 1))
        if isinstance(event, MappingStartEvent):
            open_.append(0)
        elif isinstance(event, SequenceStartEvent):
            open_.append(-1)


def _from_yaml_error(exc: MarkedYAMLError, display: str, text: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    problem = (exc.problem or exc.context or "invalid YAML").strip()
    hint = None
    if "another document" in problem:
        problem = "more than one YAML document in this file"
        hint = "keep one job, overlay or project per file; remove the '---' separator"
    elif mark is not None and _char_at(text, mark.line, mark.column) == "\t":
        hint = "YAML does not allow tabs for indentation; use spaces"
    elif exc.context and exc.context_mark is not None:
        start = exc.context_mark
        hint = f"{exc.context.strip()} that starts at line {start.line + 1}, column {start.column + 1}"
    return Problem(
        problem,
        "yaml-syntax",
        file=display,
        line=mark.line + 1 if mark else 1,
        column=mark.column + 1 if mark else 1,
        hint=hint,
    )


def _char_at(text: str, line: int, column: int) -> str:
    lines = text.split("\n", line + 1)
    return lines[line][column : column + 1] if line < len(lines) else ""


def _too_deep(display: str, line: int, column: int) -> Problem:
    return Problem(
        f"structure is nested more than {MAX_DEPTH} levels deep",
        "yaml-too-deep",
        file=display,
        line=line,
        column=column,
    )


def _origin(doc: Document, key: Node | None, value: Node) -> Origin:
    vm = value.start_mark
    km = key.start_mark if key is not None else vm
    return Origin(doc.file, vm.line + 1, vm.column + 1, km.line + 1, km.column + 1)


def _construct(
    node: Node, path: DataPath, doc: Document, budget: _Budget, *, depth: int
) -> Any:
    budget.nodes += 1
    if budget.nodes > MAX_NODES:  # pragma: no cover - _measure refuses these first
        raise _LoadError(_too_many_values(node, doc))
    if depth > MAX_DEPTH:
        raise _LoadError(
            _too_deep(doc.file, node.start_mark.line + 1, node.start_mark.column + 1)
        )
    if isinstance(node, ScalarNode):
        return _scalar(node, doc)
    if isinstance(node, SequenceNode):
        _check_tag(node, "seq", doc)
        items = []
        for index, item in enumerate(node.value):
            item_path = (*path, index)
            doc.positions[item_path] = _origin(doc, None, item)
            items.append(_construct(item, item_path, doc, budget, depth=depth + 1))
        return items
    if isinstance(node, MappingNode):
        _check_tag(node, "map", doc)
        return _mapping(node, path, doc, budget, depth=depth)
    raise _LoadError(_bad_node(node, doc, "unsupported YAML node"))  # pragma: no cover


def _mapping(
    node: MappingNode, path: DataPath, doc: Document, budget: _Budget, *, depth: int
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, ScalarNode):
            raise _LoadError(
                _bad_node(key_node, doc, "mapping keys must be plain strings")
            )
        if key_node.tag == _TAG + "merge":
            raise _LoadError(
                _bad_node(
                    key_node,
                    doc,
                    "YAML merge keys (<<) are not supported",
                    hint="put shared settings in an overlay instead",
                )
            )
        key = str(key_node.value)
        key_path = (*path, key)
        if key in out:
            first = doc.positions[key_path]
            raise _LoadError(
                _bad_node(
                    key_node,
                    doc,
                    f"duplicate key '{key}'",
                    hint=f"'{key}' is first set at line {first.key_line}; keep one",
                    code="yaml-duplicate-key",
                )
            )
        doc.positions[key_path] = _origin(doc, key_node, value_node)
        out[key] = _construct(value_node, key_path, doc, budget, depth=depth + 1)
    return out


def _check_tag(node: Node, expected: str, doc: Document) -> None:
    if node.tag != _TAG + expected:
        raise _LoadError(_bad_tag(node, doc))


def _bad_tag(node: Node, doc: Document) -> Problem:
    return _bad_node(
        node,
        doc,
        f"YAML tag '{node.tag}' is not allowed",
        hint="kgen reads plain YAML only: strings, numbers, booleans, lists and maps",
        code="yaml-tag",
    )


def _bad_node(
    node: Node,
    doc: Document,
    message: str,
    *,
    hint: str | None = None,
    code: str = "yaml-syntax",
) -> Problem:
    mark = node.start_mark
    return Problem(
        message,
        code,
        file=doc.file,
        line=mark.line + 1,
        column=mark.column + 1,
        hint=hint,
    )


def _scalar(node: ScalarNode, doc: Document) -> Any:
    value = tagged_value(node.tag, node.value)
    if value is REFUSED:
        raise _LoadError(_bad_tag(node, doc))
    return value


REFUSED = object()


def tagged_value(tag: Any, value: str) -> Any:
    """A scalar's value by its core-schema tag (a Tag or its full name); REFUSED for
    any other tag."""
    if tag == _TAG + "str" or tag == _TAG + "timestamp":
        # Timestamps stay strings: nothing in a job spec is a date, and a date-like
        # string (a tag, a run id) must survive unchanged.
        return value
    if tag == _TAG + "int":
        return _int(value)
    if tag == _TAG + "float":
        return _float(value)
    if tag == _TAG + "bool":
        return value.lower() == "true"
    if tag == _TAG + "null":
        return None
    return REFUSED


def _int(value: str) -> int:
    text = value.replace("_", "")
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    if body[:2].lower() in ("0x", "0o", "0b"):
        return sign * int(body, 0)
    return sign * int(body, 10)


def _float(value: str) -> float:
    text = value.replace("_", "").lower()
    if text.endswith(".inf"):
        return -math.inf if text.startswith("-") else math.inf
    if text.endswith(".nan"):
        return math.nan
    return float(text)


def _text_line_col(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def _line_col(raw: bytes, offset: int) -> tuple[int, int]:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    column = len(before) - (before.rfind(b"\n") + 1) + 1
    return line, column
