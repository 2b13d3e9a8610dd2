"""The job spec files read on a second thread while the first imports kgen.

A `kgen build` spends its first tenth of a second importing the project's models and
renderers (pydantic, the spec models) on one core, before it reads a single job spec;
reading a thousand of them is a few thousand system calls, which release the GIL. So a
plain `kgen build [--check]` (kgen.cli_quick) starts, once the record of the last run
has not held (kgen.cli_build: a replay reads no job spec), one thread that reads the
jobs folder exactly as kgen.load.jobs does (the same function,
kgen.load.job_files: regular files only, inside the project, within the size limit,
never opened blocking), and load_jobs takes what it read instead of reading again.

The thread only produces data. Which folder it reads is a guess made before kgen.yaml is
validated (the folder a plain top-level `jobs:` line names, else `jobs`): load_jobs
takes the result only for that very folder of that very root, and reads as before
otherwise. Anything the thread raises is dropped, and load_jobs reads again, which
gives what it always gave. The command joins the thread before it returns, on every
path (kgen.cli_build), and a fork joins it first (os.register_at_fork): no worker is
forked while it runs, and the command's fast exit (kgen.cli_exit) finds itself alone.
A run that records what it read (kgen.commands.up_to_date) counts from the moment the
thread started.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import threading

    from kgen.errors import Problem

    Read = tuple[list[tuple[str, bytes]], list[Problem]]

# A plain top-level `jobs: <folder>` line of kgen.yaml; anything else is left to the
# default (a wrong guess costs only the read it would have saved).
_JOBS_LINE = re.compile(rb"^jobs:[ \t]*([A-Za-z0-9_./-]+)[ \t]*(?:#.*)?$", re.M)
DEFAULT_JOBS = "jobs"
PROJECT_FILE = "kgen.yaml"
# kgen.yaml is a few KB; a guess needs no more than its start.
_GUESS_BYTES = 64 * 1024


class Prefetch:
    """One thread reading the jobs folder of the project at `root`."""

    def __init__(self, root: Path) -> None:
        # Imported here, by the command's own thread: the other imports nothing.
        import threading

        from kgen.load.files import OPEN_FLAGS
        from kgen.load.job_files import read_job_files

        self.root = root
        self.started_ns = time.time_ns()  # before anything is read
        self.jobs: str | None = None
        self._result: Read | None = None
        self._read: Callable[..., list[tuple[str, bytes]]] = read_job_files
        self._flags = OPEN_FLAGS | os.O_NOFOLLOW
        self._thread: threading.Thread | None = threading.Thread(
            target=self._work, name="kgen-prefetch", daemon=True
        )
        self._thread.start()

    def _work(self) -> None:
        try:
            jobs = self.jobs = _guess_jobs(self.root, self._flags)
            problems: list[Problem] = []
            read = self._read(self.root, jobs, problems)
            self._result = (read, problems)
        except BaseException:  # the command reads again, and says what went wrong
            self._result = None

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def take(self, root: Path, jobs: str) -> Read | None:
        """What the thread read, if it read the folder `jobs` of `root`; once."""
        self.join()
        result, self._result = self._result, None
        if result is None or self.jobs != jobs or root != self.root:
            return None
        return result


_current: Prefetch | None = None


def start(root: Path) -> None:
    """Start reading the job specs of the project at `root`."""
    global _current
    stop()
    _current = Prefetch(root)


def take(root: Path, jobs: str) -> Read | None:
    """The folder `jobs` of `root` as the thread read it (file names and bytes, and
    the problems kgen.load.job_files found), or None: read it."""
    return None if _current is None else _current.take(root, jobs)


def started_ns() -> int | None:
    """When the current thread started reading, if one did."""
    return None if _current is None else _current.started_ns


def stop() -> None:
    """Wait for the thread, and forget what it read."""
    global _current
    if _current is not None:
        _current.join()
        _current = None


def _join_before_fork() -> None:
    if _current is not None:
        _current.join()


def _guess_jobs(root: Path, flags: int) -> str:
    """The jobs folder kgen.yaml's `jobs:` line names, read without blocking and only
    as a regular file (no link); else the default."""
    try:
        fd = os.open(root / PROJECT_FILE, flags)
    except OSError:
        return DEFAULT_JOBS
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return DEFAULT_JOBS
        head = os.read(fd, _GUESS_BYTES)
    finally:
        os.close(fd)
    found = _JOBS_LINE.search(head)
    return DEFAULT_JOBS if found is None else found.group(1).decode()


os.register_at_fork(before=_join_before_fork)
