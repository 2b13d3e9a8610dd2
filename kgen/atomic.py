"""Replace a whole directory in one step, and keep two builds from interleaving.

The new tree is staged beside the old one and the two are exchanged with Linux
renameat2(RENAME_EXCHANGE): at every instant the output root is the complete old tree or
the complete new one. Where the call is missing (another OS or filesystem) two renames
are used, and the next build finishes an interrupted swap. Staging folders left by a
killed build are removed by the next one.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

from kgen.errors import KgenError, Problem

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
LOCK_WAIT_SECONDS = 120.0


def staging_dir(target: Path) -> Path:
    return target.with_name(f".{target.name}.kgen-new-{os.getpid()}")


def _leftovers(target: Path) -> list[Path]:
    parent = target.parent
    if not parent.is_dir():
        return []
    return sorted(
        p for p in parent.iterdir() if p.name.startswith(f".{target.name}.kgen-")
    )


def recover(target: Path) -> None:
    """Finish or undo what a killed build left: restore an old tree that was moved
    aside before the new one arrived, and remove staging folders."""
    olds = [p for p in _leftovers(target) if ".kgen-old-" in p.name]
    if not target.exists() and olds:
        olds[-1].rename(target)
    for leftover in _leftovers(target):
        shutil.rmtree(leftover, ignore_errors=True)


def swap_in(staged: Path, target: Path) -> None:
    """Make `staged` the tree at `target`, atomically where the OS allows; drop the old."""
    if not target.exists():
        staged.rename(target)
        return
    if not _exchange(staged, target):
        aside = target.with_name(f".{target.name}.kgen-old-{os.getpid()}")
        target.rename(aside)
        staged.rename(target)
        staged = aside
    shutil.rmtree(staged)


def _exchange(a: Path, b: Path) -> bool:
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    if (
        renameat2(
            _AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE
        )
        == 0
    ):
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


@contextlib.contextmanager
def build_lock(target: Path, *, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """Hold `.<output>.kgen-lock` beside the output root; a second build waits for it,
    and says so, then fails if it waited too long."""
    target.parent.mkdir(parents=True, exist_ok=True)
    lock_path = target.with_name(f".{target.name}.kgen-lock")
    with open(lock_path, "a+") as handle:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise KgenError(
                        Problem(
                            f"another kgen build has held {lock_path.name} for {wait:.0f} s",
                            "io",
                            file=lock_path.name,
                            hint="wait for it to finish; a killed build releases the lock by itself",
                        )
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
