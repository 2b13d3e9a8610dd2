"""The end of the `kgen` process: out at once, without tearing the interpreter down.

Once a command has returned, all that is left to the interpreter's own exit is to free
every object one by one: the tree of 12,000 paths, its renders, the render cache's
tables, the modules; memory the operating system takes back at once anyway. So the
command's exit does what of the interpreter's ending anyone can see, and then leaves:

- sys.stdout and sys.stderr are flushed (a flush that fails, a closed pipe, leaves the
  ending to the interpreter, which words and codes it as it always did);
- the atexit handlers run (multiprocessing's, weakref.finalize's, logging's);
- no other thread may be running and no child process alive: the interpreter would
  wait for them, and a pool's own ending is left to it;
- no profiler or tracer may be on (`python -m cProfile -m kgen`, coverage): it writes
  what it found once the program is over.

kgen writes every file it writes through a `with` block, and closes every descriptor it
opens: nothing of the project or the cache waits for an object to be freed.
Only the command as run (`kgen`, `python -m kgen`) ends so (`arm`); kgen.__main__.main
still returns to whoever calls it, and frees what it made.

Most of that freeing would come as the command returns, before the interpreter's end:
a build's tree, renders and cache. A command that is about to return `keep`s them,
which an armed run leaves for the process's end. Together about 25 ms of a 0.44 s
rebuild after a one-spec edit at 1,000 jobs (CPU and wall, medians of 15 interleaved
runs); nothing measurable for a one-spec `validate`, whose teardown gc.freeze already
made cheap (kgen.__main__).
"""

from __future__ import annotations

import atexit
import os
import sys

_armed = False
_kept: list[object] = []


def arm() -> None:
    """The process ends with `leave`: what is kept is never freed."""
    global _armed
    _armed = True


def keep(*objects: object) -> None:
    """Hold `objects` to the process's end, where `leave` ends it (else let them go
    as the caller returns)."""
    if _armed:
        _kept.extend(objects)


def leave(code: int) -> None:
    """End the process with `code`, without the interpreter's teardown, when nothing
    but the teardown is left; else return (the caller exits as usual)."""
    if not _alone():
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return  # the interpreter reports it, as it always did
    atexit._run_exitfuncs()
    if not _alone():  # pragma: no cover - an atexit handler that starts a thread
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()  # what the handlers wrote
    except (OSError, ValueError):
        return
    os._exit(code)


def _alone() -> bool:
    """Whether this is the process's only thread, with no child process alive and no
    profiler or tracer on."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return False
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return False
    multiprocessing = sys.modules.get("multiprocessing")
    return multiprocessing is None or not multiprocessing.active_children()
