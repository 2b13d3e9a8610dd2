"""Limits that keep a hostile file from exhausting memory or time, and the checks that
hold a document to them before anything is built from it.

A file is at most MAX_FILE_BYTES (kgen.load.files). Aliases let a small file stand
for a huge document: a 60 KB file repeating a 20,000-character anchor 10,000 times is
200 MB of text, all of it rendered and written. So a document (or all documents of one
`kgen import` file together) may expand to MAX_NODES values and MAX_EXPANDED_CHARS
characters of scalars and keys, each alias counted as often as it is used. Both are
measured on the composed node graph, each distinct node once: linear in the file,
whatever it expands to.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ruamel.yaml.events import (
    CollectionEndEvent,
    DocumentEndEvent,
    MappingStartEvent,
    NodeEvent,
    SequenceStartEvent,
)
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from kgen.errors import Problem
from kgen.load.files import MAX_FILE_BYTES
from kgen.load.refusals import LoadError, at_mark, too_deep

MAX_NODES = 100_000
MAX_DEPTH = 100
# Twice what a file without aliases can hold (a scalar is never longer than its text).
MAX_EXPANDED_CHARS = 2 * MAX_FILE_BYTES


class Budget:
    """What is left to expand: values, and characters of scalars and keys. `shared`
    when several documents of one file draw on it."""

    __slots__ = ("chars", "nodes", "shared")

    def __init__(self, *, shared: bool = False) -> None:
        self.nodes = MAX_NODES
        self.chars = MAX_EXPANDED_CHARS
        self.shared = shared


Sizes = dict[int, tuple[int, int]]


def spend(root: Node, budget: Budget, file: str) -> None:
    """Take what `root` expands to from `budget`, or raise at the value (in document
    order) where the budget runs out, before anything is built."""
    measure = _Measure()
    nodes, chars = measure.node(root, depth=0)
    if nodes > budget.nodes or chars > budget.chars:
        node, unit = _where_it_runs_out(root, measure.sizes, budget)
        problem = _too_large(node, unit, budget, file, aliased=measure.aliased)
        raise LoadError(problem)
    budget.nodes -= nodes
    budget.chars -= chars


class _Measure:
    """How many values and characters each node expands to, aliases repeated (each
    capped just past its limit), counted once per distinct node; and whether any node
    is reached twice, which only an alias does."""

    def __init__(self) -> None:
        self.sizes: Sizes = {}
        self.keys: set[int] = set()
        self.aliased = False

    def node(self, node: Node, *, depth: int) -> tuple[int, int]:
        # Deeper than the depth limit counts as nothing: construction reports that,
        # at the place it is.
        known = self.sizes.get(id(node))
        if known is not None or id(node) in self.keys:
            self.aliased = True
        if known is not None:
            return known
        if depth > MAX_DEPTH:
            return 0, 0
        nodes, chars = 1, 0
        if isinstance(node, ScalarNode):
            chars = len(node.value)
        elif isinstance(node, SequenceNode):
            for item in node.value:
                more, longer = self.node(item, depth=depth + 1)
                nodes, chars = nodes + more, chars + longer
        elif isinstance(node, MappingNode):
            for key, value in node.value:
                more, longer = self.node(value, depth=depth + 1)
                nodes, chars = nodes + more, chars + longer + self.key(key)
        found = min(nodes, MAX_NODES + 1), min(chars, MAX_EXPANDED_CHARS + 1)
        self.sizes[id(node)] = found
        return found

    def key(self, key: Node) -> int:
        if id(key) in self.keys or id(key) in self.sizes:
            self.aliased = True
        self.keys.add(id(key))
        return _key_length(key)


def _key_length(key: Node) -> int:
    # Other keys are refused when the mapping is built.
    return len(key.value) if isinstance(key, ScalarNode) else 0


def _where_it_runs_out(root: Node, sizes: Sizes, budget: Budget) -> tuple[Node, str]:
    """The node at which the count, in document order, passes the budget: the key or
    value that takes it past, and whether values or characters ran out."""
    node, nodes, chars = root, 0, 0
    while True:
        nodes += 1
        if nodes > budget.nodes:
            return node, "values"
        if isinstance(node, ScalarNode):
            return node, "characters"
        pairs = (
            [(None, item) for item in node.value]
            if isinstance(node, SequenceNode)
            else node.value
        )
        for key, child in pairs:
            if key is not None:
                chars += _key_length(key)
                if chars > budget.chars:
                    return key, "characters"
            more, longer = sizes.get(id(child), (0, 0))
            if nodes + more <= budget.nodes and chars + longer <= budget.chars:
                nodes, chars = nodes + more, chars + longer
                continue
            node = child
            break
        else:  # pragma: no cover - the sizes say a child passes the budget
            return node, "values"


def _too_large(
    at: Any, unit: str, budget: Budget, file: str, *, aliased: bool
) -> Problem:
    limit = MAX_NODES if unit == "values" else MAX_EXPANDED_CHARS
    if aliased:
        verbs = ("the documents in this file expand", "document expands")
        hint = "aliases (*name) that repeat large anchors multiply; write it out"
    else:
        verbs = ("the documents in this file hold", "document holds")
        hint = "no job spec, overlay or project file holds this much; split it"
    what = verbs[0] if budget.shared else verbs[1]
    return at_mark(
        at.start_mark,
        file,
        f"{what} {'to ' if aliased else ''}more than {limit} {unit}",
        hint=hint,
        code="yaml-too-large",
    )


# ruamel's C composer recurses once per level of nesting (tens of thousands of levels
# overflow the C stack and kill the process) and its scanner is quadratic in flow depth
# (100,000 levels of '[' take minutes). Up to this many levels both are harmless.
SAFE_NESTING = 1000


def nesting_bound(text: str) -> int:
    """At least the nesting depth of `text`: every collection starts with '[', '{', '-'
    or '?', or is a block mapping, whose first key is followed by ':'."""
    return sum(text.count(c) for c in "[{-?:")


def refuse_deep_nesting(events: Any, display: str) -> None:
    """Read the events (not nodes) of a document that might nest deeper than is safe to
    compose, and raise at the first value deeper than MAX_DEPTH: the place construction
    would report. Stops there, so its cost is linear whatever follows."""
    refuse_past_limits(events, None, display, deep=True)


def refuse_past_limits(
    events: Any, budget: Budget | None, display: str, *, deep: bool
) -> None:
    """Read a document's events and raise at the first value past a limit: more values
    than the `budget` (before any anchor or alias: what those expand to only the graph
    can say), or, when `deep`, deeper than MAX_DEPTH. Composing first would cost seconds
    for a megabyte of short values, and overflow the C stack past some 20,000 levels.
    Stops at the first such value or at the document's end: linear in the file."""
    count, counting = 0, budget is not None
    for event, is_key, depth in _node_events(events):
        if event.anchor is not None:
            counting = False
            if not deep:
                return
        if is_key:
            continue
        count += 1
        if counting and budget is not None and count > budget.nodes:
            raise LoadError(too_many_values(event, budget, display))
        if deep and depth > MAX_DEPTH:
            mark = event.start_mark
            raise LoadError(
                too_deep(display, mark.line + 1, mark.column + 1, MAX_DEPTH)
            )


def too_many_values(at: Any, budget: Budget, file: str) -> Problem:
    """The problem at the node or event `at`, the first value past the budget of a
    document without aliases (kgen.load.quick raises it too)."""
    return _too_large(at, "values", budget, file, aliased=False)


def _node_events(events: Any) -> Iterator[tuple[Any, bool, int]]:
    """Each node event, whether it is a mapping key, and how many collections it is in."""
    # Per open collection: the number of children seen so far, or -1 for a sequence
    # (children of a mapping alternate key, value).
    open_: list[int] = []
    for event in events:
        if isinstance(event, CollectionEndEvent):
            open_.pop()
            continue
        if isinstance(event, DocumentEndEvent):
            return  # a second document is refused before it is composed
        if not isinstance(event, NodeEvent):
            continue
        is_key = False
        if open_ and open_[-1] >= 0:
            is_key = open_[-1] % 2 == 0
            open_[-1] += 1
        yield event, is_key, len(open_)
        if isinstance(event, MappingStartEvent):
            open_.append(0)
        elif isinstance(event, SequenceStartEvent):
            open_.append(-1)
