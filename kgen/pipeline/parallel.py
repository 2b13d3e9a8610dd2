"""Spread independent pieces of work over the machine's cores, results in input order.

Workers are forked, so they inherit what the caller set up (the loaded project) instead
of receiving it; only each piece's result crosses back. Small runs, a single core,
`KGEN_WORKERS=1` or a platform without fork run in-process, with the same results.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Below this many pieces, starting workers costs more than it saves.
MIN_PARALLEL = 200
CHUNKS_PER_WORKER = 4


def worker_count() -> int:
    """KGEN_WORKERS if set (1 turns workers off), else the cores this process may use."""
    wanted = os.environ.get("KGEN_WORKERS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def map_units(
    func: Callable[[T], R],
    items: Sequence[T],
    *,
    parallel: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> list[R]:
    """`[func(item) for item in items]`, on every core when it pays; `progress` hears
    (done, total) as pieces finish."""
    workers = min(worker_count(), max(1, len(items) // (MIN_PARALLEL // 2)))
    if (
        not parallel
        or workers < 2
        or len(items) < MIN_PARALLEL
        or "fork" not in multiprocessing.get_all_start_methods()
    ):
        if progress is None:
            return [func(item) for item in items]
        return _in_process(func, items, progress)
    size = -(-len(items) // (workers * CHUNKS_PER_WORKER))
    chunks = [(func, items[i : i + size]) for i in range(0, len(items), size)]
    # Objects the workers inherit stay out of their garbage collector: its passes
    # would write to every one of them and copy the parent's memory page by page.
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            done = []
            for chunk in pool.imap(_chunk, chunks, chunksize=1):
                done.append(chunk)
                if progress is not None:
                    progress(min(len(done) * size, len(items)), len(items))
    finally:
        gc.unfreeze()
    return [result for chunk in done for result in chunk]


def _in_process(
    func: Callable[[T], R], items: Sequence[T], progress: Callable[[int, int], None]
) -> list[R]:
    results = []
    for index, item in enumerate(items, 1):
        results.append(func(item))
        progress(index, len(items))
    return results


def _chunk(job: tuple[Callable[[T], R], Sequence[T]]) -> list[R]:
    func, items = job
    return [func(item) for item in items]
