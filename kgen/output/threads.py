"""Files written and linked a thread per core: creating thousands of files is mostly
kernel time, which threads overlap (kgen.output.writer)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from kgen.pipeline.parallel import worker_count

T = TypeVar("T")
R = TypeVar("R")

# Creating and linking thousands of files is mostly kernel time, which a thread per
# core overlaps: on the 2-core CI kind two threads write 12,000 files in 0.6x the time
# one takes. (Reading is not: from the page cache it is quick, and threads only
# contend for the interpreter.) Below _IO_MIN_FILES files one thread does it all.
_IO_MIN_FILES = 500


def chunks(items: list[T]) -> list[list[T]]:
    """`items` in a run per core (up to 4), in order: files of a folder stay together."""
    threads = min(worker_count(), 4)
    if len(items) < _IO_MIN_FILES or threads < 2:
        return [items] if items else []
    size = -(-len(items) // threads)
    return [items[i : i + size] for i in range(0, len(items), size)]


def threaded(func: Callable[[list[T]], R], parts: list[list[T]]) -> list[R]:
    """`[func(c) for c in parts]`, a thread per part; the first error is raised once
    every thread has finished."""
    if len(parts) < 2:
        return [func(chunk) for chunk in parts]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(parts)) as pool:
        return list(pool.map(func, parts))
