"""What an open folder holds under a name, looked at without following links, and
whether a staging folder is in use (kgen.output.atomic)."""

from __future__ import annotations

import fcntl
import os
import stat


def unused(fd: int) -> bool:
    """Whether no build holds the staging folder open at `fd` (the lock is taken, and
    released when `fd` closes)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def exists(folder: int, name: str) -> bool:
    """Whether `name` is in `folder` (a link counts, never followed)."""
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def is_folder(folder: int, name: str) -> bool:
    """Whether `name` in `folder` is a folder itself, not a link to one."""
    try:
        mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except OSError:
        return False
    return stat.S_ISDIR(mode)
