"""The children a build forks to work beside it: the output schemas stored before the
workers fork (kgen.check.ahead) and the early scan of the output tree (kgen.output.
early_scan).

A child runs one function and leaves with os._exit (no inherited buffer flushed, no
teardown, no atexit). Its standard streams are /dev/null, and it holds no inherited
descriptor but those it is given (a staging folder's lock is held by every descriptor
of it; a pipe's reader waits for every writer). What the function returns, if the
caller asked for an answer, comes back through a pipe, at most what a pipe holds
(Linux: 64 KiB), so the child never waits for the parent, holding its memory; a child
with more to say fails. A child that fails, or is stopped, costs only its answer and
what it was writing into its folder (each file written aside as `.<name>.<pid>.tmp`
and renamed into place): whatever it left half-written is removed.

A child ignores Ctrl-C, SIGTERM and SIGHUP (held back from the fork until it ignores
them, so it never runs this process's handlers): while it runs, they reach this
process, which stops and reaps it, then acts on them as before, wherever it was
(waiting for that very child included). A process forked meanwhile (a pool's worker)
gets the handlers as they were before (os.register_at_fork). The process's end
(atexit) waits for any child still running. There is no child where another thread
runs (a fork copies no thread, nor the locks it holds), off the main thread (which
alone may set signal handlers), or without a core to spare (kgen.pipeline.parallel.
spare_core).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import signal
import sys
from collections.abc import Callable, Collection
from pathlib import Path
from types import FrameType
from typing import Any

_SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP")
    if hasattr(signal, name)
)
# What a pipe holds without its writer waiting (Linux).
PIPE_BYTES = 1 << 16


class Child:
    """A running child; `wait`, `stop` or take its `answer` (each reaps it, once)."""

    def __init__(self, pid: int, folder: Path | None, pipe: int | None) -> None:
        self.pid, self.folder, self.pipe = pid, folder, pipe
        self.status: int | None = None  # once reaped

    def wait(self) -> None:
        """Wait for the child to finish, and reap it."""
        self._end(stop=False)

    def stop(self) -> None:
        """Stop the child (if it still runs), reap it, and remove what it left
        half-written if it had not finished."""
        self._end(stop=True)

    def ended(self) -> bool:
        """Whether the child has ended, without reaping it (wait and stop reap it,
        and restore the handlers with the last child)."""
        if self.status is not None:
            return True
        try:
            found = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return found is not None

    def answer(self, *, within: float, limit: int = PIPE_BYTES) -> bytes | None:
        """What the child's function returned, once it is done; None if it failed,
        sent more than `limit` bytes, or had not sent it `within` seconds (it is
        stopped then). The child is reaped either way."""
        pipe, self.pipe = self.pipe, None
        if pipe is None:
            self.stop()
            return None
        try:
            # The child writes its answer at once, at its end: the pipe has something
            # to read (or is at an end) only then.
            ready = select.select([pipe], [], [], within)[0]
            self._end(stop=not ready)
            if not ready or self.status != 0:
                return None
            return _read(pipe, limit)
        except OSError:
            self.stop()
            return None
        finally:
            os.close(pipe)

    def _end(self, *, stop: bool) -> None:
        if stop and self.status is None:
            with contextlib.suppress(
                OSError
            ):  # a child that ended: a zombie, unchanged
                os.kill(self.pid, signal.SIGKILL)
        while self.status is None:
            try:
                status = os.waitpid(self.pid, 0)[1]
            except ChildProcessError:  # reaped meanwhile (by a signal's handler: stop)
                status = 1
            if self.status is None:
                self._reaped(status)

    def _reaped(self, status: int) -> None:
        self.status = os.waitstatus_to_exitcode(status)
        _running.remove(self)
        if not _running:  # the last child: the handlers as they were
            _restore()
        if self.status and self.folder is not None:
            _remove_partials(self.folder, self.pid)


def _read(pipe: int, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while size <= limit and (chunk := os.read(pipe, PIPE_BYTES)):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks) if size <= limit else None


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


def fork(
    work: Callable[[], bytes | None],
    folder: Path | None,
    *,
    keep: Collection[int] = (),
    answer_limit: int = 0,
) -> Child | None:
    """A child running `work`, which writes into `folder` if any, and holds no
    inherited descriptor but `keep`; with `answer_limit` (at most PIPE_BYTES), what
    `work` returns is the child's answer. None if the fork failed, or the answer's
    pipe could not be opened."""
    assert answer_limit <= PIPE_BYTES
    try:
        read, write = os.pipe() if answer_limit else (-1, -1)
    except OSError:  # the open-file limit reached: the caller does the work itself
        return None
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        try:
            pid = os.fork()
        except OSError:
            for end in (read, write):
                if end >= 0:
                    os.close(end)
            return None
        if pid == 0:
            _run_and_leave(work, keep={*keep, write}, write=write, limit=answer_limit)
        if not _running:
            _previous.update({number: signal.getsignal(number) for number in _SIGNALS})
            for number in _SIGNALS:
                signal.signal(number, _stopped)
        child = Child(pid, folder, read if answer_limit else None)
        _running.append(child)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    if answer_limit:
        os.close(write)
    return child


def _run_and_leave(
    work: Callable[[], bytes | None], *, keep: set[int], write: int, limit: int
) -> None:
    code = 1
    try:
        for number in _SIGNALS:  # the parent stops the child if it must
            signal.signal(number, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
        _quiet(keep)
        answer = work()
        if limit:
            if answer is None or len(answer) > limit:
                os._exit(1)
            view = memoryview(answer)
            while view:
                view = view[os.write(write, view) :]
        code = 0
    except BaseException:  # anything: only its answer and what it was writing is lost
        pass
    finally:
        os._exit(code)


def _quiet(keep: set[int]) -> None:
    """The standard streams on /dev/null, every other descriptor but `keep` closed."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):  # pragma: no cover - not Linux
        return
    for fd in fds:
        if fd > 2 and fd not in keep:
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


def _restore() -> None:
    # _previous is kept: a handler of kgen's that saved _stopped while a child ran
    # (kgen.output.held_signals) may set it back once none runs; it acts as before.
    for number, handler in _previous.items():
        signal.signal(number, signal.SIG_DFL if handler is None else handler)


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


def _forget() -> None:
    """In a process forked while children run (a pool's worker): they are not its
    own, and its signals are handled as before they were forked."""
    if _running:
        _running.clear()
        _restore()


os.register_at_fork(after_in_child=_forget)


@atexit.register
def _reap_all() -> None:
    """Any way out of the process waits for what its children write."""
    for child in reversed(_running[:]):
        child.wait()
