"""Spread independent pieces of work over the machine's cores, results in input order.

Workers are forked, so they inherit what the caller set up (the loaded project) instead
of receiving it; only each piece's result crosses back. Small runs, a single core,
`KGEN_WORKERS=1` or a platform without fork run in-process, with the same results.
"""

from __future__ import annotations

import gc
import os
import pickle
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

from kgen.pipeline.parent_watch import leave_with

if TYPE_CHECKING:
    import threading
    from concurrent.futures import ProcessPoolExecutor

T = TypeVar("T")
R = TypeVar("R")

# Below this many pieces, starting workers costs more than it saves.
MIN_PARALLEL = 200
CHUNKS_PER_WORKER = 4


def worker_count() -> int:
    """KGEN_WORKERS if set (1 turns workers off), else one worker for each core this
    process may use that the rest of the machine leaves idle, at least one."""
    return _asked() or workers_for(_cores(), _load())


# Whether a child has a core to spare (spare_core) whatever the load; None: the load
# decides. For tests, which would otherwise depend on how busy the machine is.
SPARE_CORE: bool | None = None


def spare_core() -> bool:
    """Whether a second process would have a core to itself now: workers are not
    turned off (KGEN_WORKERS=1), and the machine's load leaves two cores free, whatever
    KGEN_WORKERS asks for (a child beside a busy machine's parent only slows it). The
    one rule for every child kgen forks to work beside it (kgen.pipeline.forked)."""
    if _asked() == 1:
        return False
    if SPARE_CORE is not None:
        return SPARE_CORE
    return workers_for(_cores(), _load()) >= 2


def _asked() -> int | None:
    """KGEN_WORKERS, if it is a count (not 0); anything else is ignored. ASCII digits
    only: "²" is a digit to str.isdigit, not to int (an internal error, exit 3), and
    int reads "٣" (Arabic-Indic) as 3."""
    wanted = os.environ.get("KGEN_WORKERS", "")
    if wanted.isascii() and wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    return None


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def workers_for(cores: int, load: float) -> int:
    """Workers for `cores` under a load average of `load` (runnable processes): one
    for each core the load leaves free. On a busy machine a second worker only queues
    behind the others' work, and forking it, and moving every result between
    processes, made two workers 10% slower than one (load 2.4-3.3 on 2 cores)."""
    return max(1, min(cores, round(cores - load)))


def _load() -> float:
    """How many processes besides this one want a core: the lesser of the one-minute
    load average (which still counts a kgen run that just ended, as in a benchmark's
    back-to-back runs) and the processes runnable right now (a moment's blip)."""
    try:
        average = os.getloadavg()[0]
        with open("/proc/loadavg", "rb") as handle:
            running = int(handle.read().split()[3].split(b"/")[0]) - 1
    except (OSError, ValueError, IndexError):  # not Linux: the average alone
        try:
            return os.getloadavg()[0]
        except OSError:  # pragma: no cover - no load average at all
            return 0.0
    return max(0.0, min(average, float(running)))


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
    if not parallel or workers < 2 or len(items) < MIN_PARALLEL or not _can_fork():
        if progress is None:
            return _chunk((func, items, None))
        return _in_process(func, items, progress)
    size = -(-len(items) // (workers * CHUNKS_PER_WORKER))
    chunks = [(func, items[i : i + size], None) for i in range(0, len(items), size)]
    # Objects the workers inherit stay out of their garbage collector: its passes
    # would write to every one of them and copy the parent's memory page by page.
    gc.freeze()
    try:
        done = []
        for chunk in _ordered(workers, chunks, len(chunks)):
            done.append(chunk)
            if progress is not None:
                progress(min(len(done) * size, len(items)), len(items))
    finally:
        gc.unfreeze()
        settle()  # a caller that renders nothing after has nothing to overlap
    return [result for chunk in done for result in chunk]


def _can_fork() -> bool:
    # Imported here: a run small enough for one process never needs it (6 ms).
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


# Pieces a worker takes at once when results stream back: enough to make moving them
# cheap, few enough that the parent hears of each soon and never holds many.
STREAM_CHUNK = 16


def imap_units(
    func: Callable[[T], R],
    items: Sequence[T],
    *,
    parallel: bool = True,
    pieces: int | None = None,
    first: Callable[[Sequence[T]], object] | None = None,
) -> Generator[R, None, None]:
    """`func(item)` for each item, in order, as each is done: on every core when it
    pays, with the parent taking (and letting go of) each result while the workers go
    on, so a run never holds all results at once. `pieces`: how many of map_units'
    pieces the items make together (a job rendered in four environments is four), by
    which it decides as map_units does. `first` takes each batch of items before
    `func` takes any of them (where it runs: a worker's chunk)."""
    pieces = len(items) if pieces is None else pieces
    workers = pool_size(pieces) if parallel else 1
    if workers < 2:
        for i in range(0, len(items), STREAM_CHUNK):
            yield from _chunk((func, items[i : i + STREAM_CHUNK], first))
        return
    size = max(1, min(STREAM_CHUNK, len(items) // (workers * CHUNKS_PER_WORKER)))
    # A piece goes out only when fewer than this many are out and not taken: when the
    # parent is the slower (writing each result), results taken as they came piled
    # up, 180 MB at 10,000 jobs.
    chunks = (
        (func, items[start:end], first)
        for start, end in tapered(len(items), size, workers)
    )
    gc.freeze()  # as in map_units
    try:
        for chunk in _ordered(workers, chunks, workers * CHUNKS_PER_WORKER):
            yield from chunk
    finally:
        gc.unfreeze()


def tapered(count: int, size: int, workers: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each chunk of `count` items: `size` items each, then smaller
    toward the end, so that the workers finish together. With equal chunks, one
    worker rendered the last chunk (16 jobs, 30 ms) while the others waited, a core
    idle; each of the last chunks now takes at most a share of what is left."""
    start = 0
    while start < count:
        left = count - start
        step = min(size, -(-left // (2 * workers)))
        yield start, start + step
        start += step


def _ordered(
    workers: int, chunks: Iterable[_Chunk[T, R]], ahead: int
) -> Iterator[list[R]]:
    """Each chunk's results, in order, from `workers` forked processes, with at most
    `ahead` chunks out and not taken. A worker that dies (the kernel's OOM killer, a
    signal) ends the run with an error: multiprocessing.Pool replaced it and waited
    for ever for the chunk it had taken; the executor says its pool is broken.
    A worker's exception crosses back as it is (_crossing)."""
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    from kgen.pipeline.pool_start import start_pool

    pool = start_pool(workers, initializer=leave_with, initargs=(os.getpid(),))
    if pool is None:  # no room for workers (the open-file limit): the same, in-process
        yield from map(_chunk, chunks)
        return
    out: deque[Future[list[R]]] = deque()
    finished = False
    try:
        for chunk in chunks:
            out.append(pool.submit(_chunk, chunk))
            if len(out) >= ahead:
                yield out.popleft().result()
        while out:
            result = out.popleft().result()
            finished = not out
            yield result
    except BrokenProcessPool:
        raise RuntimeError(
            "a worker process died (killed by a signal, or by the system short of "
            "memory); KGEN_WORKERS=1 runs without workers"
        ) from None
    finally:
        if finished:
            _let_go(pool)
        else:
            pool.shutdown(wait=True, cancel_futures=True)


# The threads that see the workers of finished streams out (kgen.pipeline.run waits
# for them after its own end-of-run work).
_leaving: list[threading.Thread] = []


def _let_go(pool: ProcessPoolExecutor) -> None:
    """Tell an idle pool's workers to leave, without waiting for them: they end (each
    freeing its memory) while the parent goes on with the end of the run."""
    thread = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=thread is None)
    if thread is not None:
        _leaving.append(thread)


def settle() -> None:
    """Wait for the workers of finished streams to be gone (a process that ends
    with a child or a thread alive ends slowly: kgen.cli_exit)."""
    while _leaving:
        _leaving.pop().join()


def pool_size(pieces: int) -> int:
    """How many workers imap_units starts for `pieces` (1: none, in-process)."""
    if pieces < MIN_PARALLEL:
        return 1
    workers = min(worker_count(), max(1, pieces // (MIN_PARALLEL // 2)))
    return workers if workers > 1 and _can_fork() else 1


def _in_process(
    func: Callable[[T], R], items: Sequence[T], progress: Callable[[int, int], None]
) -> list[R]:
    results = []
    for index, item in enumerate(items, 1):
        try:
            results.append(func(item))
        except Exception as exc:  # as a worker's would (_chunk)
            raise _crossing(exc) from None
        progress(index, len(items))
    return results


_Chunk = tuple[Callable[[T], R], Sequence[T], Callable[[Sequence[T]], object] | None]


def _chunk(job: _Chunk[T, R]) -> list[R]:
    func, items, first = job
    try:
        if first is not None:
            first(items)
        return [func(item) for item in items]
    except Exception as exc:
        raise _crossing(exc) from None


def _crossing(exc: Exception) -> Exception:
    """`exc`, or what says the same if it could not cross back from a worker: the pool
    rebuilds an exception from its args, and one whose class wants others (a custom
    __init__) stopped the pool's result thread, and the run waited for ever. Done in
    process too, so the message is the same with any number of workers."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc
