"""The render cache written by a child process while the build writes its tree.

At the end of a cold build of 1,000 jobs, the cache's tables take 55-70 ms to pickle and
write, on one core, while the other idles; then the parent lays out, writes and swaps in
the tree and reports (another 60-70 ms) with the cache already written. Where the
machine has a core to spare and the run made many renders, a child (kgen.pipeline.
forked) forked once the run's workers are gone writes the cache (kgen.pipeline.cache
Cache.save, the very same code: the same bytes) while the parent goes on with the tree.

The process is not done until the cache is: the build waits for the child (and reaps
it) before it returns, whatever its outcome; so does the process's end (atexit), for
any other way out. A child that fails or dies costs only the cache (the next run renders
again), as a save that fails in-process always did.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgen.pipeline import forked

# Fewer renders made than this are saved in the time a fork takes (and the pages the
# parent then copies as it goes on).
MIN_RENDERS = 500

_child: forked.Child | None = None


def possible(renders: int) -> bool:
    """Whether a save of `renders` made renders can go to a child now."""
    return not pending() and renders >= MIN_RENDERS and forked.can_fork()


def start(folder: Path, save: Callable[[], None]) -> bool:
    """Fork a child that runs `save` (which writes into `folder`); False if the fork
    failed (the caller saves in-process)."""
    global _child
    _child = forked.fork(folder, save)
    return _child is not None


def pending() -> bool:
    return _child is not None and not _child.done


def wait() -> None:
    """Wait for the child to finish the cache, and reap it."""
    global _child
    child, _child = _child, None
    if child is not None:
        child.wait()
