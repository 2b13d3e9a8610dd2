"""Open what kgen reads and writes in its output tree without following links.

A pull request can put anything in the tree: a symbolic link to the CI's secrets, a
named pipe that blocks whoever opens it, a file where a folder should be. So every
component is opened relative to the folder before it with O_NOFOLLOW, files are opened
non-blocking and checked to be regular before a byte is read, and anything else is
reported for what it is (`Refused`), never followed, read or written through.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import NamedTuple

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# O_NONBLOCK: opening a named pipe for reading would otherwise wait for a writer.
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW | _CLOEXEC | os.O_NONBLOCK
_FILE = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | os.O_NONBLOCK
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC

_KINDS = {
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFIFO: "a named pipe",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFDIR: "a folder",
    stat.S_IFREG: "a file",
}


def describe(mode: int) -> str:
    """What a file of this mode is, for messages: 'a symbolic link', 'a named pipe'..."""
    return _KINDS.get(stat.S_IFMT(mode), "a special file")


class Refused(Exception):
    """`path` (shown from the project root) is `kind`, where kgen wanted a regular
    file or a real folder."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"{path} is {kind}")
        self.path = path
        self.kind = kind


def open_root(root: Path) -> int:
    """The project root as a folder descriptor (the root itself is the user's choice,
    so it may be reached through a link)."""
    return os.open(root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)


def open_below(root: Path, rel: str, *, create: bool = False) -> int:
    """Folder `rel` of the project `root` as a descriptor, through open_folder."""
    base = open_root(root)
    try:
        return open_folder(base, rel, create=create)
    finally:
        os.close(base)


def open_folder(base: int, rel: str, *, shown: str = "", create: bool = False) -> int:
    """A descriptor of folder `rel` (a normalised relative path, '' for `base` itself)
    below folder descriptor `base`, each component a real folder; `shown` is `base`'s
    path for messages. Raises FileNotFoundError for a missing folder (unless `create`),
    Refused for a link or anything but a folder on the way."""
    fd = os.dup(base)
    at = shown
    try:
        for part in rel.split("/") if rel else []:
            at = f"{at}/{part}" if at else part
            parent, fd = fd, -1
            try:
                fd = _step(parent, part, at, create=create)
            finally:
                os.close(parent)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise
    return fd


def _step(parent: int, name: str, shown: str, *, create: bool) -> int:
    try:
        return os.open(name, _FOLDER, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
        # Something may appear meanwhile: the open below says what it is.
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o777, dir_fd=parent)
        return _step(parent, name, shown, create=False)
    except OSError as exc:
        if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
            raise
        raise Refused(shown, _kind_at(parent, name)) from None


def _kind_at(folder: int, name: str) -> str:
    try:
        return describe(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return "not a folder"


def open_file(folder: int, name: str, shown: str) -> int | None:
    """A read descriptor of regular file `name` in `folder`; None when there is none.
    Raises Refused for anything else there (never opened blocking, never followed)."""
    try:
        fd = os.open(name, _FILE, dir_fd=folder)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(shown, "a symbolic link") from None
        # A socket cannot be opened at all (ENXIO): said for what it is all the same.
        kind = _kind_at(folder, name)
        if kind in ("a file", "not a folder"):
            raise
        raise Refused(shown, kind) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise Refused(shown, describe(mode))
    return fd


class Unread(NamedTuple):
    """A regular file left unread, being larger than the reader's limit. A NamedTuple:
    a frozen dataclass's methods were compiled from source at import."""

    size: int


def read_file(
    folder: int, name: str, shown: str, *, limit: int | None = None
) -> bytes | Unread | None:
    """The bytes of regular file `name` in `folder`, None when there is none, Unread
    when it is over `limit` bytes; Refused for anything but a regular file."""
    fd = open_file(folder, name, shown)
    return None if fd is None else read_all(fd, limit=limit)


def read_all(fd: int, *, limit: int | None = None) -> bytes | Unread:
    """Read an open regular file to its end (unless it is over `limit` bytes) and close
    it. Plain system calls: a build reads every file of the tree, and a file object per
    file costs a third of the time."""
    try:
        size = os.fstat(fd).st_size
        if limit is not None and size > limit:
            return Unread(size)
        data = b""
        while chunk := os.read(fd, max(size - len(data), 0) + 4096):
            data += chunk
            if limit is not None and len(data) > limit:  # it grew meanwhile
                return Unread(len(data))
        return data
    finally:
        os.close(fd)


def write_new(path: str, data: bytes, *, folder: int | None = None) -> None:
    """Create file `path` (relative to `folder` if given), which must not exist, not
    even as a link, holding `data`."""
    fd = os.open(path, _NEW_FILE, 0o666, dir_fd=folder)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
