"""What was made of the last few job specs, by identity, for the renders that follow.

A worker renders a job in each of its environments in a row, and the environments that
merge the job alike share one spec object: its role settings, replica specs, TensorBoard
specs and load are the same for all of them. Each entry holds its spec, so the spec's id
is not reused while the entry lives. What comes back is shared: no caller may change it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")

# A job's environments alternate between a few merged specs (CPU and GPU overlays).
KEPT = 8


class RecentSpecs(Generic[T]):
    """One value per (spec, key), for the last KEPT specs asked about."""

    def __init__(self) -> None:
        self._kept: dict[tuple[int, Hashable], tuple[object, T]] = {}

    def get(self, spec: object, make: Callable[[], T], *, key: Hashable = None) -> T:
        """The value made for `spec` (and `key`), made now if not kept."""
        slot = (id(spec), key)
        entry = self._kept.get(slot)
        if entry is None or entry[0] is not spec:
            if len(self._kept) >= KEPT:
                self._kept.clear()
            entry = self._kept[slot] = (spec, make())
        return entry[1]
