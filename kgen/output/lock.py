"""The build lock: `.<output>.kgen-lock` beside the output root, so that a second build
waits for the first instead of interleaving with it.

The lock file is created, or opened, in the output root's parent without following
links and must be a regular file: a link planted under its name is never written
through, and a lock that cannot be created (a read-only checkout, a folder in its
place) is a located error, never an internal one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import time
from collections.abc import Iterator

from kgen.errors import KgenError, Problem
from kgen.output.atomic import Place
from kgen.output.safe_paths import describe

LOCK_WAIT_SECONDS = 120.0
# O_NONBLOCK: a named pipe under the lock's name is opened without waiting, then refused.
_LOCK = os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@contextlib.contextmanager
def build_lock(place: Place, *, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """Hold `.<output>.kgen-lock` beside the output root; a second build waits for it,
    and says so, then fails if it waited too long."""
    shown = place.path(place.lock_name)
    fd = _open_lock(place, shown)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise KgenError(
                        Problem(
                            f"another kgen build has held {place.lock_name} for {wait:.0f} s",
                            "io",
                            file=shown,
                            hint="wait for it to finish; a killed build releases the lock by itself",
                        )
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock


def _open_lock(place: Place, shown: str) -> int:
    try:
        fd = os.open(place.lock_name, _LOCK, 0o666, dir_fd=place.parent)
    except OSError as exc:
        raise KgenError(_lock_problem(place, shown, exc)) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise KgenError(_no_lock(shown, f"it is {describe(mode)}"))
    return fd


def _lock_problem(place: Place, shown: str, exc: OSError) -> Problem:
    # A link (ELOOP), a folder (EISDIR), a socket (ENXIO): said for what it is.
    try:
        mode = os.stat(place.lock_name, dir_fd=place.parent, follow_symlinks=False)
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode.st_mode):
        return _no_lock(shown, f"it is {describe(mode.st_mode)}")
    return _no_lock(shown, exc.strerror or str(exc))


def _no_lock(shown: str, why: str) -> Problem:
    return Problem(
        f"cannot lock {shown}: {why}; nothing was written",
        "io",
        file=shown,
        hint="kgen needs a regular file there that it can create and lock: remove what is there, or make the folder writable",
    )
