"""The render cache written by a child process while the build writes its tree.

At the end of a cold build of 1,000 jobs, the cache's tables take 55-70 ms to pickle and
write, on one core, while the other idles; then the parent lays out, writes and swaps in
the tree and reports (another 60-70 ms) with the cache already written. Where the
machine has a core to spare and the run made many renders, a child forked once the
run's workers are gone writes the cache (kgen.pipeline.cache Cache.save, the very same
code, so the same bytes) while the parent goes on with the tree.

The process is not done until the cache is: the build waits for the child (and reaps
it) before it returns, whatever its outcome; so does the process's end (atexit), for
any other way out. The child writes nothing but the cache files (each written aside and
renamed into place, as always), never touches the standard streams and leaves with
os._exit (no inherited buffer flushed, no teardown). A child that fails or dies costs
only the cache (the next run renders again), as a save that fails in-process always
did: whatever it left half-written is removed. Ctrl-C, SIGTERM or SIGHUP while the
child runs stop it and reap it first, then act as before. There is no child where
another thread runs (a fork copies no thread, nor the locks it holds), off the main
thread (which alone may set signal handlers), or where there is nothing to write.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

# Fewer renders made than this are saved in the time a fork takes (and the pages the
# parent then copies as it goes on).
MIN_RENDERS = 500
_SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP")
    if hasattr(signal, name)
)


class _Child:
    def __init__(self, pid: int, folder: Path, previous: dict[int, Any]) -> None:
        self.pid, self.folder, self.previous = pid, folder, previous


_child: _Child | None = None
_registered = False


def possible(renders: int) -> bool:
    """Whether a save of `renders` made renders can go to a child now."""
    if _child is not None or renders < MIN_RENDERS or not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    if threading is not None and (
        threading.active_count() > 1
        or threading.current_thread() is not threading.main_thread()
    ):
        return False
    # Imported here: a run that saves in-process needs none of it.
    from kgen.pipeline.parallel import worker_count

    return worker_count() >= 2


def start(folder: Path, save: Callable[[], None]) -> bool:
    """Fork a child that runs `save` (which writes into `folder`); False if the fork
    failed (the caller saves in-process)."""
    global _child, _registered
    if not _registered:
        atexit.register(wait)
        _registered = True
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid == 0:  # the child: save, and leave without the parent's teardown
        _save_and_leave(save)
    previous = {number: signal.getsignal(number) for number in _SIGNALS}
    _child = _Child(pid, folder, previous)
    for number in _SIGNALS:
        signal.signal(number, _stopped)
    return True


def _save_and_leave(save: Callable[[], None]) -> None:
    code = 1
    try:
        for number in _SIGNALS:  # the parent stops the child if it must
            signal.signal(number, signal.SIG_IGN)
        _close_inherited()
        save()
        code = 0
    except BaseException:  # anything: only the cache is lost
        pass
    finally:
        os._exit(code)


def _close_inherited() -> None:
    """Close what the child inherited but the standard streams (never used): a
    staging folder's lock is held by every descriptor of it, and must go with the
    parent's; a pipe's reader must see its end when the parent closes it."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):  # pragma: no cover - not Linux
        return
    for fd in fds:
        if fd > 2:
            with contextlib.suppress(OSError):
                os.close(fd)


def pending() -> bool:
    return _child is not None


def wait() -> None:
    """Wait for the child to finish the cache, and reap it."""
    _end(stop=False)


def stop() -> None:
    """Stop the child, reap it and remove what it left half-written."""
    _end(stop=True)


def _end(*, stop: bool) -> None:
    global _child
    child = _child
    if child is None:
        return
    _child = None
    if stop:
        with contextlib.suppress(OSError):
            os.kill(child.pid, signal.SIGKILL)
    status = 0
    while True:
        try:
            status = os.waitpid(child.pid, 0)[1]
            break
        except ChildProcessError:
            break
        except InterruptedError:  # pragma: no cover - retried by Python itself
            continue
    for number, handler in child.previous.items():
        signal.signal(number, signal.SIG_DFL if handler is None else handler)
    if stop or not os.WIFEXITED(status) or os.WEXITSTATUS(status):
        _remove_partials(child.folder, child.pid)


def _remove_partials(folder: Path, pid: int) -> None:
    """The files a child stopped half-way left (named `.<name>.<pid>.tmp`, as
    kgen.pipeline.cache writes them)."""
    suffix = f".{pid}.tmp"
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name.startswith(".") and name.endswith(suffix):
            with contextlib.suppress(OSError):
                os.unlink(folder / name)


def _stopped(signum: int, frame: FrameType | None) -> None:
    """A signal while the child runs: stop and reap it, then act on the signal as the
    handler before would have."""
    child = _child
    previous = child.previous.get(signum) if child is not None else None
    stop()
    if callable(previous):
        previous(signum, frame)
    elif previous != signal.SIG_IGN:
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)
