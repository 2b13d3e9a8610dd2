"""Load YAML into plain data plus the 1-based position of every key and value.

ruamel's C parser composes the node graph with marks (about 7x faster than round-trip
loading); this module constructs plain dicts, lists and scalars from it, so it alone
decides what input is acceptable: one YAML 1.2 document per file, no duplicate keys,
only the core-schema tags, scalars that are what their tags say, and a bounded
expansion of aliases (no "billion laughs", kgen.yaml_bounds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import DocumentStartEvent
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.tag import Tag

from kgen.errors import DataPath, Problem
from kgen.input_files import MAX_FILE_BYTES, read_input, too_large
from kgen.scalars import REFUSED, ScalarError, tagged_value
from kgen.yaml_bounds import (
    MAX_DEPTH,
    MAX_NODES,
    SAFE_NESTING,
    Budget,
    nesting_bound,
    refuse_deep_nesting,
    spend,
)
from kgen.yaml_problems import (
    LoadError,
    at_mark,
    bad_character,
    directive,
    from_yaml_error,
    not_utf8,
    too_deep,
)

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "MAX_NODES", "REFUSED", "tagged_value"]

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


def load_file(
    path: Path, display: str, *, root: Path | None = None
) -> tuple[Document | None, list[Problem]]:
    """Read (kgen.input_files) and load one file; `display` is the name problems carry
    (relative path); `root` the project it must stay inside."""
    reading = read_input(path, display, root=root)
    if reading.raw is None:
        return None, [reading.problem] if reading.problem else []
    return load_bytes(reading.raw, display)


def decode(raw: bytes, display: str) -> tuple[str | None, list[Problem]]:
    """A file's bytes as text (UTF-8, a byte order mark allowed), or the problem."""
    if len(raw) > MAX_FILE_BYTES:
        return None, [too_large(display, len(raw))]
    try:
        return raw.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        return None, [not_utf8(display, raw, exc.start)]


def load_bytes(raw: bytes, display: str) -> tuple[Document | None, list[Problem]]:
    text, problems = decode(raw, display)
    if text is None:
        return None, problems
    return load_string(text, display)


def load_string(
    text: str, display: str, *, budget: Budget | None = None
) -> tuple[Document | None, list[Problem]]:
    """Like load_bytes, for text already decoded: a document, or the problem. Several
    documents of one file share a `budget` (kgen import)."""
    try:
        return load_text(text, display, budget=budget), []
    except LoadError as exc:
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
                    # Directives other than %YAML 1.2 are refused before composing.
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


def load_text(text: str, display: str, *, budget: Budget | None = None) -> Document:
    if nesting_bound(text) <= SAFE_NESTING:
        # Imported here: the fast path reads this module's limits and scalar rules.
        from kgen.quick_load import quick_load

        quick = quick_load(text, display, budget=budget)
        if quick is not None:
            return Document(display, *quick)
    return full_load(text, display, budget=budget)


def full_load(text: str, display: str, *, budget: Budget | None = None) -> Document:
    """load_text without the fast path: the path that words every problem, and the
    reference the fast path is tested against."""
    node = _compose(text, display)
    doc = Document(display, None)
    if node is not None:
        # Refuse before building anything: an alias bomb costs its expanded size.
        spend(node, budget or Budget(), display)
        doc.data = _Constructor(doc, text).value(node, (), depth=0)
    return doc


def _compose(text: str, display: str) -> Node | None:
    try:
        if _DIRECTIVE.search(text):
            _refuse_directives(text, display)
        if nesting_bound(text) > SAFE_NESTING:
            refuse_deep_nesting(_yaml().parse(text), display)
        return _yaml().compose(text)  # type: ignore[no-any-return]
    except MarkedYAMLError as exc:
        raise LoadError(from_yaml_error(exc, display, text)) from None
    except ReaderError as exc:
        problem = bad_character(display, text, exc.position, exc.character)
        raise LoadError(problem) from None
    except YAMLError as exc:
        problem = Problem(
            f"YAML error: {exc}", "yaml-syntax", file=display, line=1, column=1
        )
        raise LoadError(problem) from None
    except RecursionError:
        raise LoadError(too_deep(display, 1, 1, MAX_DEPTH)) from None


# A directive is a line that starts with '%' before a document.
_DIRECTIVE = re.compile(r"^%", re.MULTILINE)


def _refuse_directives(text: str, display: str) -> None:
    """Refuse %YAML other than 1.2 and %TAG. Under %YAML 1.1 ruamel resolves scalars by
    1.1 rules (yes is a boolean, 010 octal), which kgen would then misread as 1.2."""
    for event in _yaml().parse(text):
        if isinstance(event, DocumentStartEvent):
            if event.version not in (None, (1, 2)):
                raise LoadError(directive(display, text, "YAML", event.version))
            if event.tags:
                raise LoadError(directive(display, text, "TAG", None))
            return


def _origin(doc: Document, key: Node | None, value: Node) -> Origin:
    vm = value.start_mark
    km = key.start_mark if key is not None else vm
    return Origin(doc.file, vm.line + 1, vm.column + 1, km.line + 1, km.column + 1)


class _Constructor:
    """Plain values from a node graph the budget has already measured."""

    def __init__(self, doc: Document, text: str) -> None:
        self.doc, self.text = doc, text

    def value(self, node: Node, path: DataPath, *, depth: int) -> Any:
        if depth > MAX_DEPTH:
            mark = node.start_mark
            raise LoadError(
                too_deep(self.doc.file, mark.line + 1, mark.column + 1, MAX_DEPTH)
            )
        if isinstance(node, ScalarNode):
            return self.scalar(node)
        if isinstance(node, SequenceNode):
            self.check_tag(node, "seq")
            items = []
            for index, item in enumerate(node.value):
                item_path = (*path, index)
                self.doc.positions[item_path] = _origin(self.doc, None, item)
                items.append(self.value(item, item_path, depth=depth + 1))
            return items
        if isinstance(node, MappingNode):
            self.check_tag(node, "map")
            return self.mapping(node, path, depth=depth)
        raise LoadError(self.problem(node, "unsupported YAML node"))  # pragma: no cover

    def mapping(
        self, node: MappingNode, path: DataPath, *, depth: int
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        doc = self.doc
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                raise LoadError(
                    self.problem(key_node, "mapping keys must be plain strings")
                )
            if key_node.tag == _TAG + "merge":
                raise LoadError(
                    self.problem(
                        key_node,
                        "YAML merge keys (<<) are not supported",
                        hint="put shared settings in an overlay instead",
                    )
                )
            key = str(key_node.value)
            key_path = (*path, key)
            if key in out:
                first = doc.positions[key_path]
                raise LoadError(
                    self.problem(
                        key_node,
                        f"duplicate key '{key}'",
                        hint=f"'{key}' is first set at line {first.key_line}; keep one",
                        code="yaml-duplicate-key",
                    )
                )
            doc.positions[key_path] = _origin(doc, key_node, value_node)
            out[key] = self.value(value_node, key_path, depth=depth + 1)
        return out

    def check_tag(self, node: Node, expected: str) -> None:
        if node.tag != _TAG + expected:
            raise LoadError(self.bad_tag(node))

    def bad_tag(self, node: Node) -> Problem:
        return self.problem(
            node,
            f"YAML tag '{node.tag}' is not allowed",
            hint="kgen reads plain YAML only: strings, numbers, booleans, lists and maps",
            code="yaml-tag",
        )

    def scalar(self, node: ScalarNode) -> Any:
        tag = node.tag
        if tag != _TAG + "str" and self.non_specific(node):
            # `! 010`: the non-specific tag makes a scalar a string (YAML 1.2,
            # section 6.9.2), though libyaml reports it as plain, to be resolved.
            tag = _TAG + "str"
        try:
            value = tagged_value(tag, node.value)
        except ScalarError as exc:
            message, hint = exc.wording(explicit=self.tagged(node))
            raise LoadError(
                self.problem(node, message, hint=hint, code=exc.code)
            ) from None
        if value is REFUSED:
            raise LoadError(self.bad_tag(node))
        return value

    def tagged(self, node: Node) -> bool:
        """Whether the node is written with a tag (its text starts with '!')."""
        index = node.start_mark.index
        return self.text.startswith("!", index)

    def non_specific(self, node: Node) -> bool:
        index = node.start_mark.index
        return self.text.startswith("!", index) and self.text[
            index + 1 : index + 2
        ] in (
            " ",
            "\t",
            "\r",
            "\n",
            "",
        )

    def problem(
        self,
        node: Node,
        message: str,
        *,
        hint: str | None = None,
        code: str = "yaml-syntax",
    ) -> Problem:
        return at_mark(node.start_mark, self.doc.file, message, hint=hint, code=code)
