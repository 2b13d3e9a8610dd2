"""Where the patches wrote in one object, and the patch value that wrote each place.

The places are kept as a tree of the object's paths, a list's by position, so an
operation that inserts, removes or moves list items moves the records of the items
after it as the list moves them: a later insert at a list's head does not leave the
record of a patch's item on the spec's item that now sits at its index."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from kgen.errors import DataPath
from kgen.load.document import Origin

# Values the patches of one render may add in all (a value is a scalar, a map or a
# list): `copy` doubles what it copies, so twenty copies would make a million. A
# change that large belongs in the spec.
MAX_ADDED = 10_000


class _Place:
    """One place in the object: the patch value that wrote it (None: only places below
    it were written), when it was first written, and the places below it: a map's by
    key, a list's by position (None where no patch wrote)."""

    __slots__ = ("below", "order", "origin")

    def __init__(self) -> None:
        self.origin: Origin | None = None
        self.order = 0
        self.below: dict[str, _Place] | list[_Place | None] | None = None


class PatchMarks:
    """Out path -> the origin of the patch value written there (`marks`, in the order
    first written), kept as list operations move the items."""

    def __init__(self) -> None:
        self._root = _Place()
        self._count = itertools.count(1)
        # List items removed, at the index they had: for `kgen explain` only (the
        # items after them moved up, so the places now hold others).
        self.removed: list[tuple[DataPath, Origin]] = []
        self._marks: dict[DataPath, Origin] | None = None
        self._under: dict[DataPath, Origin] | None = None

    @property
    def marks(self) -> dict[DataPath, Origin]:
        """Each place a patch wrote, in the order first written (built once asked)."""
        if self._marks is None:
            found: list[tuple[int, DataPath, Origin]] = []
            stack: list[tuple[DataPath, _Place]] = [((), self._root)]
            while stack:
                path, place = stack.pop()
                if place.origin is not None:
                    found.append((place.order, path, place.origin))
                below = place.below
                if isinstance(below, dict):
                    stack += [((*path, k), p) for k, p in below.items()]
                elif below is not None:
                    stack += [((*path, i), p) for i, p in enumerate(below) if p]
            found.sort(key=lambda row: row[0])
            self._marks = {path: origin for _, path, origin in found}
        return self._marks

    def one(self, out: DataPath, origin: Origin) -> None:
        """`out` written whole by `origin`: what was recorded below it is gone."""
        self._write(self._place(out), origin)

    def value(
        self, out: DataPath, value: Any, origin_of: Callable[[DataPath], Origin]
    ) -> None:
        """`value` written at `out`: the place and every leaf below it, each at the
        line of the patch that holds it (`origin_of` a path relative to the value)."""
        top = self._place(out)
        self._write(top, origin_of(()))
        stack: list[tuple[DataPath, Any]] = [((), value)]
        while stack:
            rest, item = stack.pop()
            # Pushed last to first, so the leaves come out in the order written.
            if isinstance(item, dict) and item:
                stack += reversed([((*rest, k), v) for k, v in item.items()])
            elif isinstance(item, list) and item:
                stack += reversed([((*rest, i), v) for i, v in enumerate(item)])
            elif rest:
                self._write(self._place(rest, top), origin_of(rest))

    def insert(self, out: DataPath) -> None:
        """An item inserted at `out` (a list index): the records of the items from
        there on move one up."""
        items, index = self._items(out), out[-1] if out else None
        if items is not None and isinstance(index, int) and index < len(items):
            items.insert(index, None)

    def drop(self, out: DataPath) -> None:
        """The item at `out` (a list index) removed: its records go, those of the
        items after it move one down. A map's key: its records go."""
        self._changed()
        parent = self._find(out[:-1])
        below = parent.below if parent is not None else None
        if isinstance(below, list) and isinstance(out[-1], int):
            if out[-1] < len(below):
                del below[out[-1]]
        elif isinstance(below, dict):
            below.pop(str(out[-1]), None)

    def remove(self, out: DataPath, origin: Origin) -> None:
        """`out` removed by `origin`: a list item is shown as removed at the index it
        had, a map's key as removed at its place."""
        if isinstance(out[-1], int):
            self.drop(out)
            self.removed.append((out, origin))
        else:
            self.one(out, origin)

    def move(self, source: DataPath, out: DataPath, origin: Origin) -> None:
        """What was at `source` moved to `out` by `origin`, with the records below it
        (the list items after the source move down, those from `out` on up)."""
        moved = self._find(source)
        self.drop(source)
        self.insert(out)
        place = self._place(out)
        if moved is not None:
            place.below = moved.below
        place.origin, place.order = origin, next(self._count)

    def origin(self, out: DataPath) -> Origin | None:
        """The patch value that wrote `out`, else the first one written below it (an
        error at a map a patch filled, such as a missing key, is the patch's), else
        the nearest above it (a value written whole)."""
        marks = self.marks
        found = marks.get(out)
        if found is not None or not out:
            return found
        if self._under is None:
            # Built once, when the first output error asks: most objects have none.
            self._under = {}
            for path, origin in marks.items():
                for cut in range(1, len(path)):
                    self._under.setdefault(path[:cut], origin)
        found = self._under.get(out)
        for cut in range(len(out) - 1, 0, -1):
            if found is not None:
                break
            found = marks.get(out[:cut])
        return found

    def _write(self, place: _Place, origin: Origin) -> None:
        if place.origin is None:
            place.order = next(self._count)
        place.origin, place.below = origin, None

    def _items(self, out: DataPath) -> list[_Place | None] | None:
        """The recorded items of the list `out` indexes, if any."""
        if not out or not isinstance(out[-1], int):
            return None
        self._changed()
        parent = self._find(out[:-1])
        below = parent.below if parent is not None else None
        return below if isinstance(below, list) else None

    def _find(self, path: DataPath) -> _Place | None:
        place: _Place | None = self._root
        for key in path:
            below = place.below if place is not None else None
            if isinstance(below, list) and isinstance(key, int):
                place = below[key] if key < len(below) else None
            elif isinstance(below, dict):
                place = below.get(str(key))
            else:
                return None
        return place

    def _place(self, path: DataPath, start: _Place | None = None) -> _Place:
        """The place at `path` (below `start`, else the root), made (with the places
        above it) if new."""
        self._changed()
        place = self._root if start is None else start
        for key in path:
            if isinstance(key, int):
                if not isinstance(place.below, list):
                    place.below = []
                items = place.below
                items += [None] * (key + 1 - len(items))
                found = items[key]
                if found is None:
                    found = items[key] = _Place()
            else:
                if not isinstance(place.below, dict):
                    place.below = {}
                found = place.below.get(key)
                if found is None:
                    found = place.below[key] = _Place()
            place = found
        return place

    def _changed(self) -> None:
        self._marks = self._under = None


class Budget:
    """How many more values the patches of one render may add."""

    def __init__(self, limit: int = MAX_ADDED) -> None:
        self.left = limit

    def take(self, value: Any) -> bool:
        """Count `value` against the budget; False (and nothing taken) when over."""
        count, stack = 0, [value]
        while stack:
            item = stack.pop()
            count += 1
            if count > self.left:
                return False
            if isinstance(item, dict):
                stack += item.values()
            elif isinstance(item, list):
                stack += item
        self.left -= count
        return True
