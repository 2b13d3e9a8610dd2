"""Remove a folder of kgen's (a staging folder) holding at most two descriptors.

shutil.rmtree with a dir_fd, which never follows a link, holds two descriptors for each
level it walks down (the folder, and the copy its listing takes): six for a staging
folder. At the open-file limit (`ulimit -n 8`), that was more than a failed build had
left, and its staging folder stayed beside the output tree, 3,600 files. Here each folder
is reached again from the top, one component at a time, never through a link, and
closed before the next is opened.
"""

from __future__ import annotations

import contextlib
import os
import stat

_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_folder(parent: int, name: str) -> None:
    """Remove folder `name` in the folder open at `parent`, with what is in it, as
    far as it can (what cannot be removed stays)."""
    with contextlib.suppress(OSError):
        # Empty (made, and no descriptor left to fill it): it goes without one.
        os.rmdir(name, dir_fd=parent)
        return
    with contextlib.suppress(OSError):
        _remove(parent, (name,))


def _remove(parent: int, parts: tuple[str, ...]) -> None:
    fd = _reach(parent, parts)
    try:
        folders = [name for name in os.listdir(fd) if not _unlinked(fd, name)]
    finally:
        os.close(fd)
    for name in folders:
        with contextlib.suppress(OSError):
            _remove(parent, (*parts, name))
    above = _reach(parent, parts[:-1]) if len(parts) > 1 else parent
    try:
        os.rmdir(parts[-1], dir_fd=above)
    finally:
        if above != parent:
            os.close(above)


def _unlinked(fd: int, name: str) -> bool:
    """Remove `name` if it is not a folder; False if it is one (or stays)."""
    try:
        if stat.S_ISDIR(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
            return False
        os.unlink(name, dir_fd=fd)
    except OSError:
        return False
    return True


def _reach(parent: int, parts: tuple[str, ...]) -> int:
    """The folder at `parts` below `parent`, open, reached through no link; holding
    one descriptor of the way at a time besides the one it opens."""
    fd = os.open(parts[0], _FOLDER_FLAGS, dir_fd=parent)
    for part in parts[1:]:
        try:
            below = os.open(part, _FOLDER_FLAGS, dir_fd=fd)
        finally:
            os.close(fd)
        fd = below
    return fd
