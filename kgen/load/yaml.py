"""Load YAML into plain data plus the 1-based position of every key and value.

ruamel's C parser composes the node graph with marks (about 7x faster than round-trip
loading), and kgen.load.construct builds plain dicts, lists and scalars from it; plain
files take the fast path of kgen.load.quick instead. Together they alone decide what
input is acceptable: one YAML 1.2 document per file (no other %YAML, no %TAG), no
duplicate keys, only the core-schema tags, scalars that are what their tags say
(kgen.load.scalars), and a bounded expansion of aliases (no "billion laughs",
kgen.load.limits).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import DocumentStartEvent
from ruamel.yaml.nodes import Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.tag import Tag

from kgen.errors import Problem
from kgen.load.document import Document
from kgen.load.files import MAX_FILE_BYTES, read_input, too_large
from kgen.load.limits import (
    MAX_DEPTH,
    SAFE_NESTING,
    Budget,
    nesting_bound,
    refuse_past_limits,
    spend,
)
from kgen.load.quick import quick_load
from kgen.load.refusals import (
    LoadError,
    bad_character,
    directive,
    from_yaml_error,
    not_utf8,
    other_line_break,
    too_deep,
)

_TAG = "tag:yaml.org,2002:"


def load_file(
    path: Path, display: str, *, root: Path | None = None
) -> tuple[Document | None, list[Problem]]:
    """Read (kgen.load.files) and load one file; `display` is the name problems carry
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


# Line breaks to YAML but not to git, GitHub or an editor, which count lines by '\n'
# alone: past one, every position kgen reports (and every annotation on the pull
# request) would point a line below the one it means. CR LF stays welcome.
_OTHER_BREAK = re.compile("\r(?!\n)|[\x85\u2028\u2029]")


def _has_other_break(text: str) -> bool:
    """Whether `text` may hold one of _OTHER_BREAK's characters: four scans for one
    character each take a tenth of the time of the pattern's search on a spec."""
    return "\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text


def load_text(text: str, display: str, *, budget: Budget | None = None) -> Document:
    budget = budget or Budget()
    if _has_other_break(text):
        found = _OTHER_BREAK.search(text)
        if found is not None:
            raise LoadError(other_line_break(display, text, found.start()))
    # The fast path needs no guard: it counts values against the budget and declines
    # at the first value deeper than MAX_DEPTH, so the parser never gets far into a
    # deep document (100,000 levels of '[' are declined in milliseconds). Guarding it
    # too cost a second parse of every long file: an overlay patching 10,000 env
    # entries went to the events twice, then to the slow path for its '-' and ':'.
    quick = quick_load(text, display, budget=budget)
    if quick is not None:
        return Document(display, *quick)
    return full_load(text, display, budget=budget)


def full_load(text: str, display: str, *, budget: Budget | None = None) -> Document:
    """load_text without the fast path: the path that words every problem, and the
    reference the fast path is tested against."""
    budget = budget or Budget()
    _guard(text, display, budget)
    node = _compose(text, display)
    doc = Document(display, None)
    if node is not None:
        # Imported here: plain files (nearly all) take the fast path and never need it.
        from kgen.load.construct import Constructor

        # Refuse before building anything: an alias bomb costs its expanded size.
        spend(node, budget, display)
        doc.data = Constructor(doc, text).value(node, (), depth=0)
    return doc


def _guard(text: str, display: str, budget: Budget) -> None:
    """Refuse, from its events, a document that might have more values than the budget
    (no value takes less than a character) or nest deeper than is safe to compose."""
    deep = nesting_bound(text) > SAFE_NESTING
    if not deep and len(text) < budget.nodes:
        return
    try:
        if _DIRECTIVE.search(text):
            _refuse_directives(text, display)
        refuse_past_limits(_yaml().parse(text), budget, display, deep=deep)
    except (YAMLError, RecursionError) as exc:
        raise _load_error(exc, text, display) from None


def _compose(text: str, display: str) -> Node | None:
    try:
        if _DIRECTIVE.search(text):
            _refuse_directives(text, display)
        return _yaml().compose(text)  # type: ignore[no-any-return]
    except (YAMLError, RecursionError) as exc:
        raise _load_error(exc, text, display) from None


def _load_error(exc: Exception, text: str, display: str) -> LoadError:
    """The parser's or composer's error as the problem at its place."""
    if isinstance(exc, MarkedYAMLError):
        return LoadError(from_yaml_error(exc, display, text))
    if isinstance(exc, ReaderError):
        return LoadError(bad_character(display, text, exc.position, exc.character))
    if isinstance(exc, RecursionError):
        return LoadError(too_deep(display, 1, 1, MAX_DEPTH))
    problem = Problem(
        f"YAML error: {exc}", "yaml-syntax", file=display, line=1, column=1
    )
    return LoadError(problem)


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
