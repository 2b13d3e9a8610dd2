"""The loader's fast path: plain YAML built straight from the parser's events.

Nearly every file kgen reads is a few dozen lines of plain YAML. Building values
straight from the events of ruamel's C parser (the one the full loader uses, so both
accept exactly the same text) skips the node graph and the per-node resolver calls:
0.9 ms a job file instead of 2 ms. Whatever is out of the ordinary (a syntax error, an
anchor or alias, a tag, a directive, a second document, a duplicate or merge key, deep
nesting, a number that is none) is declined, and the full loader, which words every
problem, reads the file instead. One refusal it makes itself: a document with more
values than the budget allows, before any anchor, at the value past it, as the full
loader does from its events (composing a megabyte of short values takes seconds).
Tests check that where this path answers, it gives the same values and positions as
the full one, and the same problem where it refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from _ruamel_yaml import CParser
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.resolver import VersionedResolver

from kgen.errors import DataPath
from kgen.load.document import Origin, Positions
from kgen.load.limits import MAX_DEPTH, Budget, too_many_values
from kgen.load.refusals import LoadError
from kgen.load.scalars import REFUSED, ScalarError, tagged_value

_TAG = "tag:yaml.org,2002:"


class _Decline(Exception):
    """Leave this file to the full loader."""


# ruamel's YAML 1.2 core rules for plain scalars, by first character, as the full
# loader resolves them.
_RULES: dict[Any, list[tuple[str, Any]]] = VersionedResolver().versioned_resolver
# Each plain scalar's value, worked out once (the same keys recur in every file);
# bounded, so no input grows it without end.
_PLAIN: dict[str, Any] = {}
_MAX_PLAIN = 50_000
_MERGE = object()


def _plain(text: str) -> Any:
    """A plain scalar's value; _MERGE for `<<`; declines tags the loader refuses and
    text that is not of its tag's type (ScalarError)."""
    tag = _TAG + "str"
    for candidate, rule in _RULES.get(text[0] if text else "", []) + _RULES.get(
        None, []
    ):
        if rule.match(text):
            tag = candidate
            break
    if tag == _TAG + "merge":
        return _MERGE
    value = tagged_value(tag, text)
    if value is REFUSED:  # the full loader says why
        raise _Decline
    if type(value) in (int, float) and text != str(value):
        # `0755`, `0x1F`, `1e400` (inf): the full loader keeps what was written
        raise _Decline
    return value


def quick_load(
    text: str, file: str, *, budget: Budget | None = None
) -> tuple[Any, Positions] | None:
    """`text`'s value and positions, or None to leave it to the full loader; raises
    LoadError past the `budget`'s values. Without aliases a document expands to no more
    characters than its text, so only its values are counted against the budget."""
    parser = CParser(text)
    budget = budget or Budget()
    try:
        builder = _Builder(parser.get_event, file, budget)
        found = builder.document()
    except (_Decline, YAMLError, RecursionError, ScalarError):
        return None
    finally:
        parser.dispose()
    budget.nodes -= builder.count
    return found


class _Builder:
    __slots__ = ("budget", "count", "file", "limit", "next_event", "positions")

    def __init__(
        self, next_event: Callable[[], Any], file: str, budget: Budget
    ) -> None:
        self.next_event = next_event
        self.file = file
        self.positions: Positions = {}
        self.count = 0
        self.budget = budget
        self.limit = budget.nodes

    def document(self) -> tuple[Any, Positions]:
        self.next_event()  # the stream's start
        event = self.next_event()
        if type(event) is StreamEndEvent:
            return None, self.positions
        if type(event) is not DocumentStartEvent or event.version or event.tags:
            raise _Decline
        data = self.value(self.next_event(), (), 0)
        if type(self.next_event()) is not DocumentEndEvent:
            raise _Decline  # pragma: no cover - libyaml ends what it started
        if type(self.next_event()) is not StreamEndEvent:
            raise _Decline  # another document: the full loader says so
        return data, self.positions

    def value(self, event: Any, path: DataPath, depth: int) -> Any:
        self.count += 1
        if self.count > self.limit:
            # Before any anchor: the place, and the words, of the full loader's
            # count of events; it would compose the whole document to say it.
            raise LoadError(too_many_values(event, self.budget, self.file))
        if depth > MAX_DEPTH:
            raise _Decline
        # `ctag`, not `tag`: the event's tag as stored, without the property's str().
        if event.anchor is not None or event.ctag is not None:
            raise _Decline
        kind = type(event)
        if kind is ScalarEvent:
            return _scalar(event)
        if kind is MappingStartEvent:
            return self.mapping(path, depth)
        if kind is SequenceStartEvent:
            return self.sequence(path, depth)
        raise _Decline  # an alias

    # Mappings and sequences take their scalars (most values) here, without a call
    # of `value` each: the same count, limit, depth and checks, in the same order.
    def mapping(self, path: DataPath, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        file, positions, next_event = self.file, self.positions, self.next_event
        inner = depth + 1
        while True:
            key_event: Any = next_event()
            if type(key_event) is MappingEndEvent:
                return out
            if (
                type(key_event) is not ScalarEvent
                or key_event.anchor is not None
                or key_event.ctag is not None
            ):
                raise _Decline
            key = key_event.value
            if key in out or (key_event.implicit[0] and key == "<<"):
                raise _Decline
            value_event: Any = next_event()
            key_path = (*path, key)
            km: Any = key_event.start_mark
            vm: Any = value_event.start_mark
            positions[key_path] = _origin(
                Origin,
                (file, vm.line + 1, vm.column + 1, km.line + 1, km.column + 1),
            )
            if (
                type(value_event) is ScalarEvent
                and self.count < self.limit
                and inner <= MAX_DEPTH
                and value_event.anchor is None
                and value_event.ctag is None
            ):
                self.count += 1
                out[key] = _scalar(value_event)
            else:
                out[key] = self.value(value_event, key_path, inner)

    def sequence(self, path: DataPath, depth: int) -> list[Any]:
        items: list[Any] = []
        file, positions, next_event = self.file, self.positions, self.next_event
        inner = depth + 1
        while True:
            event: Any = next_event()
            if type(event) is SequenceEndEvent:
                return items
            item_path = (*path, len(items))
            mark = event.start_mark
            line, column = mark.line + 1, mark.column + 1
            positions[item_path] = _origin(Origin, (file, line, column, line, column))
            if (
                type(event) is ScalarEvent
                and self.count < self.limit
                and inner <= MAX_DEPTH
                and event.anchor is None
                and event.ctag is None
            ):
                self.count += 1
                items.append(_scalar(event))
            else:
                items.append(self.value(event, item_path, inner))


# An Origin from its fields as one tuple: NamedTuple's own constructor is a Python
# function, one call more for each of the tens of thousands of values in a build.
_origin = tuple.__new__


def _scalar(event: Any) -> Any:
    """A scalar event's value, the event being neither anchored nor tagged."""
    if not event.implicit[0]:
        return event.value  # quoted or block: a string
    text = event.value
    value = _PLAIN.get(text, _PLAIN)
    if value is _PLAIN:
        value = _plain(text)
        if len(_PLAIN) >= _MAX_PLAIN:
            _PLAIN.clear()
        _PLAIN[text] = value
    if value is _MERGE:
        raise _Decline
    return value
