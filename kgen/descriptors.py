"""The process's open-file limit (`ulimit -n`), and what kgen does near it.

A pool of workers needs descriptors of its own (its queues' pipes, two for each worker,
a wake-up pipe), and so does a forked child (its answer's pipe): under a low limit
(`ulimit -n 8` to `16`) a pool that could not start ended a build as an internal error
(exit 3), or, with one worker started and the next refused, waited for ever on it. Work
that has an in-process way (kgen.pipeline.parallel, kgen.pipeline.forked) takes it when
the descriptors are not there; a descriptor that kgen cannot do without ends the run
with exit 1 and `too_few_message` (kgen.cli_guard), the output tree unchanged.
"""

from __future__ import annotations

import errno
import os
from dataclasses import replace

from kgen.errors import Problem

# Descriptors a pool needs besides two for each worker: its call and result queues'
# pipes, its wake-up pipe, and the two pipes each fork opens for a moment.
POOL_DESCRIPTORS = 10
PER_WORKER = 2
# What the run goes on opening while the workers render: spec and cache files, the
# output tree's folders and files, the lock.
RUN_DESCRIPTORS = 16
# The limit the hint asks for: room for the pool, the run and the folders kgen walks.
HINTED_LIMIT = 256
_OUT_OF_DESCRIPTORS = (errno.EMFILE, errno.ENFILE)


def open_limit() -> int | None:
    """The soft limit on open descriptors; None where there is none (or no way to
    know)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return None
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return None if soft == resource.RLIM_INFINITY else soft


def open_count() -> int | None:
    """How many descriptors the process holds now; None if it cannot say."""
    try:
        # Listing the folder takes one descriptor of its own, counted in its entries.
        return len(os.listdir("/proc/self/fd")) - 1
    except OSError:
        return None


def spare() -> int | None:
    """How many more descriptors the process may open now; None: no limit known."""
    limit = open_limit()
    if limit is None:
        return None
    held = open_count()
    return 0 if held is None else max(0, limit - held)


def workers_within(workers: int) -> int:
    """At most `workers`, as many as the open-file limit leaves room for beside the
    run's own descriptors; 1 (in-process) when there is no room for two."""
    left = spare()
    if left is None:
        return workers
    room = (left - POOL_DESCRIPTORS - RUN_DESCRIPTORS) // PER_WORKER
    return max(1, min(workers, room))


def out_of_descriptors(exc: BaseException) -> bool:
    """Whether `exc` says the process (EMFILE) or the system (ENFILE) has no
    descriptor left to open."""
    return isinstance(exc, OSError) and exc.errno in _OUT_OF_DESCRIPTORS


def limit_hinted(problems: list[Problem]) -> list[Problem]:
    """`problems`, each that says a descriptor could not be opened (`cannot write
    manifests/: Too many open files`) with a hint naming the limit: the limit, not
    the folder, is what to change."""
    return [
        replace(problem, hint=_joined(problem.hint, limit_hint()))
        if _too_few(problem)
        else problem
        for problem in problems
    ]


def _joined(hint: str | None, limit: str) -> str:
    return limit if hint is None else f"{limit}; or {hint}"


def _too_few(problem: Problem) -> bool:
    return any(os.strerror(number) in problem.message for number in _OUT_OF_DESCRIPTORS)


def limit_hint() -> str:
    """Names the open-file limit, and how to raise it."""
    limit = open_limit()
    shown = "unlimited" if limit is None else str(limit)
    return (
        f"too few file descriptors (ulimit -n is {shown}): raise the limit,"
        f" for example with `ulimit -n {HINTED_LIMIT}`"
    )


def too_few_message(reason: str | None = None) -> str:
    """The one line that ends a run short of descriptors, naming the limit."""
    limit = open_limit()
    shown = "unlimited" if limit is None else str(limit)
    why = reason or os.strerror(errno.EMFILE)
    return (
        f"kgen: error: too few file descriptors (ulimit -n is {shown}): {why};"
        f" hint: raise the limit, for example with `ulimit -n {HINTED_LIMIT}`"
    )
