"""A child process forked to write files of the user's cache folder while this process
goes on: the output schemas stored before the workers fork (kgen.check.ahead).

A child writes nothing but files of its cache folder (each written aside as
`.<name>.<pid>.tmp` and renamed into place), never touches the standard streams, holds
no inherited descriptor but those (a staging folder's lock is held by every descriptor
of it; a pipe's reader waits for every writer) and leaves with os._exit: no inherited
buffer flushed, no teardown. It ignores Ctrl-C, SIGTERM and SIGHUP: while it runs, they
reach this process, which stops and reaps it, then acts on them as before. A child that
fails, or is stopped, costs only what it was writing: whatever it left half-written is
removed. The process's end (atexit) waits for any child still running. There is no
child where another thread runs (a fork copies no thread, nor the locks it holds), off
the main thread (which alone may set signal handlers), or without a core to spare
(kgen.pipeline.parallel.spare_core).
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

_SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP")
    if hasattr(signal, name)
)


class Child:
    """A running child; `wait` or `stop` it (each reaps it, once)."""

    def __init__(self, pid: int, folder: Path) -> None:
        self.pid, self.folder = pid, folder
        self.done = False

    def wait(self) -> None:
        """Wait for the child to finish, and reap it."""
        self._end(stop=False)

    def stop(self) -> None:
        """Stop the child (if it still runs), reap it, and remove what it left
        half-written if it had not finished."""
        self._end(stop=True)

    def _end(self, *, stop: bool) -> None:
        if self.done:
            return
        self.done = True
        _running.remove(self)
        if stop:  # a child that finished is a zombie now: the signal changes nothing
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
        status = 1
        with contextlib.suppress(ChildProcessError):
            status = os.waitpid(self.pid, 0)[1]
        if not _running:  # the last child: the handlers as they were
            for number, handler in _previous.items():
                signal.signal(number, signal.SIG_DFL if handler is None else handler)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status):
            _remove_partials(self.folder, self.pid)


_running: list[Child] = []
# The signal handlers before the first of the children running now.
_previous: dict[int, Any] = {}


def can_fork() -> bool:
    """Whether a child may be forked now: a platform with fork, this process's only
    thread, and a core to spare."""
    if not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    if threading is not None and (
        threading.active_count() > 1
        or threading.current_thread() is not threading.main_thread()
    ):
        return False
    # Imported here: a run that forks nothing needs none of it.
    from kgen.pipeline.parallel import spare_core

    return spare_core()


def fork(folder: Path, work: Callable[[], None]) -> Child | None:
    """A child running `work` (which writes into `folder`); None if the fork failed."""
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:
        _run_and_leave(work)
    if not _running:
        _previous.clear()
        _previous.update({number: signal.getsignal(number) for number in _SIGNALS})
        for number in _SIGNALS:
            signal.signal(number, _stopped)
    child = Child(pid, folder)
    _running.append(child)
    return child


def _run_and_leave(work: Callable[[], None]) -> None:
    code = 1
    try:
        for number in _SIGNALS:  # the parent stops the child if it must
            signal.signal(number, signal.SIG_IGN)
        _close_inherited()
        work()
        code = 0
    except BaseException:  # anything: only what it was writing is lost
        pass
    finally:
        os._exit(code)


def _close_inherited() -> None:
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):  # pragma: no cover - not Linux
        return
    for fd in fds:
        if fd > 2:
            with contextlib.suppress(OSError):
                os.close(fd)


def _remove_partials(folder: Path, pid: int) -> None:
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
    """A signal while a child runs: stop and reap every child, then act on the
    signal as the handler before the first would have."""
    previous = _previous.get(signum)
    for child in reversed(_running[:]):
        child.stop()
    if callable(previous):
        previous(signum, frame)
    elif previous != signal.SIG_IGN:
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)


@atexit.register
def _reap_all() -> None:
    """Any way out of the process waits for what its children write."""
    for child in reversed(_running[:]):
        child.wait()
