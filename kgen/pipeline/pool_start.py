"""Start the pool of forked workers kgen.pipeline.parallel spreads work over, or say
there is none to have, so that the work runs in-process with the same results.

A pool needs descriptors (kgen.descriptors) and processes. Asked for more than
the open-file limit leaves room for, it gets fewer workers, or none. One that fails to
start all the same (the limit reached by the time it forks, no process left to fork)
is taken apart: every worker it started is killed and reaped, and what it opened is
closed. Before, the run ended as an internal error (exit 3), and with one worker
started and the next refused, the process's end waited for ever on that worker.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kgen.descriptors import workers_within

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor


def start_pool(
    workers: int, *, initializer: Callable[..., object], initargs: tuple[Any, ...]
) -> ProcessPoolExecutor | None:
    """A pool of up to `workers` forked processes, all started; None where fewer than
    two could be (the caller works in-process)."""
    # Imported here: a run small enough for one process never needs it.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    workers = workers_within(workers)
    if workers < 2:
        return None
    try:
        pool = ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("fork"),
            initializer=initializer,
            initargs=initargs,
        )
    except OSError:
        gc.collect()  # the queues made before the one refused: their pipes closed
        return None
    try:
        # A forking pool starts every worker at its first piece of work.
        pool.submit(int)
    except OSError:
        _take_apart(pool)
    else:
        return pool
    del pool
    gc.collect()  # the pool's pipes, closed as their objects go (kgen turns gc off)
    return None


def _take_apart(pool: ProcessPoolExecutor) -> None:
    """Kill and reap the workers `pool` started before it failed, and close what it
    opened: its workers wait for work that will not come, and its manager thread,
    which would end them, never started."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        process.kill()
    for process in processes:
        process.join()
        process.close()
    pool.shutdown(wait=False, cancel_futures=True)
