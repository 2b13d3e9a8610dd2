"""Where the patches wrote in one object, and the patch value that wrote each place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgen.errors import DataPath
from kgen.load.document import Origin

# Values the patches of one render may add in all (a value is a scalar, a map or a
# list): `copy` doubles what it copies, so twenty copies would make a million. A
# change that large belongs in the spec.
MAX_ADDED = 10_000


class PatchMarks:
    """Out path -> the origin of the patch value written there."""

    def __init__(self) -> None:
        self.marks: dict[DataPath, Origin] = {}
        # List items a merge deleted, at the index they had: for `kgen explain` only
        # (the items after them moved up, so the places now hold others).
        self.removed: list[tuple[DataPath, Origin]] = []
        self._under: dict[DataPath, Origin] | None = None

    def one(self, out: DataPath, origin: Origin) -> None:
        self.marks[out] = origin

    def value(
        self, out: DataPath, value: Any, origin_of: Callable[[DataPath], Origin]
    ) -> None:
        """`value` written at `out`: the place and every leaf below it, each at the
        line of the patch that holds it (`origin_of` a path relative to the value)."""
        self.marks[out] = origin_of(())
        stack: list[tuple[DataPath, Any]] = [((), value)]
        while stack:
            rest, item = stack.pop()
            # Pushed last to first, so the leaves come out in the order written.
            if isinstance(item, dict) and item:
                stack += reversed([((*rest, k), v) for k, v in item.items()])
            elif isinstance(item, list) and item:
                stack += reversed([((*rest, i), v) for i, v in enumerate(item)])
            elif rest:
                self.marks[(*out, *rest)] = origin_of(rest)

    def origin(self, out: DataPath) -> Origin | None:
        """The patch value that wrote `out`, else the first one written below it (an
        error at a map a patch filled, such as a missing key, is the patch's), else
        the nearest above it (a value written whole)."""
        found = self.marks.get(out)
        if found is not None or not out:
            return found
        if self._under is None:
            # Built once, when the first output error asks: most objects have none.
            self._under = {}
            for path, origin in self.marks.items():
                for cut in range(1, len(path)):
                    self._under.setdefault(path[:cut], origin)
        found = self._under.get(out)
        for cut in range(len(out) - 1, 0, -1):
            if found is not None:
                break
            found = self.marks.get(out[:cut])
        return found


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
