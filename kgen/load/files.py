"""Reading input files: regular files only, inside the project, never more than the
size limit, never a hang.

Every file kgen reads as input (kgen.yaml, overlays, job specs, CRDs, `kgen import`
arguments) comes through `read_input`. It opens without blocking (a FIFO opened for
reading otherwise waits for a writer that never comes), asks the open file what it is
(fstat, so nothing can swap it between the check and the read) and reads only a regular
file, at most one byte past the limit. A link is followed only where it stays inside the
project; the path checked is the path opened.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from kgen.errors import Problem

MAX_FILE_BYTES = 1024 * 1024

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
# What does not exist, or cannot: a missing file, or a path through a file.
_MISSING = (errno.ENOENT, errno.ENOTDIR)


class Reading(NamedTuple):
    """A file's bytes, or the problem that kept kgen from reading them; `missing` when
    the file does not exist, for callers that have their own word for that."""

    raw: bytes | None
    problem: Problem | None = None
    missing: bool = False


def read_input(
    path: str | os.PathLike[str],
    display: str,
    *,
    root: Path | None = None,
    follow: bool = False,
    folder_inside: bool = False,
) -> Reading:
    """Read the regular file at `path`; `display` is the name problems carry.

    With `root`, links are followed as long as they stay inside `root`, and refused if
    they leave it. Without, a link is refused (the caller has checked the path is no
    link), unless `follow` (files named on the command line, which may be anywhere).
    `folder_inside`: the caller has checked the folder `path` is in lies inside `root`,
    so only a link as the file itself needs resolving.
    """
    if root is not None and folder_inside:
        # One system call for the common case; only a link (ELOOP under O_NOFOLLOW)
        # costs resolving the path.
        direct = read_input(path, display)
        if direct.problem is None or not _is_link(path):
            return direct
    flags = _OPEN_FLAGS
    if root is not None:
        real = os.path.realpath(path)
        if not is_inside(real, root):
            linked = is_inside(os.path.abspath(path), root)
            return Reading(None, escapes(display) if linked else beyond(display))
        path, flags = real, flags | os.O_NOFOLLOW
    elif not follow:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        return _unopened(path, display, exc, follow=not flags & os.O_NOFOLLOW)
    try:
        return _read_regular(fd, display)
    except OSError as exc:
        return Reading(None, cannot_read(display, exc))
    finally:
        os.close(fd)


def read_unlinked(
    path: str | os.PathLike[str], display: str
) -> tuple[Reading, os.stat_result | None]:
    """read_input of a file that must be no link, with the fstat of what was read
    (taken before the read; None when nothing was): what kgen.load.job_record keeps."""
    try:
        fd = os.open(path, _OPEN_FLAGS | os.O_NOFOLLOW)
    except OSError as exc:
        return _unopened(path, display, exc, follow=False), None
    try:
        status = os.fstat(fd)
        reading = _read_regular(fd, display, status)
    except OSError as exc:
        return Reading(None, cannot_read(display, exc)), None
    finally:
        os.close(fd)
    return reading, status if reading.raw is not None else None


def _unopened(
    path: str | os.PathLike[str], display: str, exc: OSError, *, follow: bool
) -> Reading:
    """The reading of a file the open refused: a socket (ENXIO) or other special file
    said for what it is, as fstat would have; else why the open failed."""
    if exc.errno not in (*_MISSING, errno.ELOOP):
        try:
            mode = os.stat(path, follow_symlinks=follow).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode) and not stat.S_ISLNK(mode):
            return Reading(None, not_regular(display, mode))
    return Reading(None, cannot_read(display, exc), exc.errno in _MISSING)


def _is_link(path: str | os.PathLike[str]) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _read_regular(
    fd: int, display: str, status: os.stat_result | None = None
) -> Reading:
    # Plain system calls: a project is a thousand small files, and a file object each
    # costs a third of the reading.
    mode = (os.fstat(fd) if status is None else status).st_mode
    if not stat.S_ISREG(mode):
        return Reading(None, not_regular(display, mode))
    raw = b""
    while len(raw) <= MAX_FILE_BYTES:
        chunk = os.read(fd, MAX_FILE_BYTES + 1 - len(raw))
        if not chunk:
            return Reading(raw)
        raw += chunk
    return Reading(None, too_large(display, os.fstat(fd).st_size))


def is_inside(real: str, root: Path) -> bool:
    """Whether the resolved path `real` lies inside `root` (itself resolved here)."""
    top = os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def outside(root: Path, path: Path) -> bool:
    """Whether `path` (after links) lies outside the project: kgen never reads there.
    os.path.realpath rather than Path.resolve: on a link loop, the second raises
    RuntimeError in Python 3.11; a loop is for the open to report (ELOOP)."""
    return not is_inside(os.path.realpath(path), root)


def escapes(display: str, *, what: str = "file") -> Problem:
    return Problem(
        f"{display} links to a {what} outside the project; kgen reads only files inside it",
        "io",
        file=display,
        hint=f"copy the {what} into the project instead of linking to it",
    )


def beyond(display: str) -> Problem:
    """The problem of a path that names a file outside the project, without a link."""
    return Problem(
        f"{display} is outside the project; kgen reads only files inside it",
        "io",
        file=display,
        hint="copy the file into the project and name it there",
    )


def cannot_read(display: str, exc: OSError) -> Problem:
    hint = None
    if exc.errno == errno.ELOOP:
        hint = "a symbolic link that leads back to itself; point it at the file"
    elif exc.errno in (errno.EACCES, errno.EPERM):
        hint = "make the file (and its folders) readable by the user running kgen"
    reason = exc.strerror or type(exc).__name__
    return Problem(f"cannot read file: {reason}", "io", file=display, hint=hint)


_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


def kind_of(mode: int) -> str:
    """What a file of this mode is, for messages: 'a socket', 'a folder'..."""
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def not_regular(display: str, mode: int) -> Problem:
    kind = kind_of(mode)
    return Problem(
        f"{display} is {kind}; kgen reads regular files only",
        "io",
        file=display,
        hint="replace it with the file itself",
    )


def too_large(display: str, size: int) -> Problem:
    return Problem(
        f"file is {size} bytes, more than the limit of {MAX_FILE_BYTES}",
        "file-too-large",
        file=display,
        line=1,
        column=1,
        hint="a job spec or overlay is a few dozen lines; split it",
    )


def list_folder(
    folder: Path, shown: str, suffixes: tuple[str, ...]
) -> tuple[list[os.DirEntry[str]], list[Problem]]:
    """The entries of `folder` whose names end in one of `suffixes`, by name, and a
    problem for the folder if it cannot be listed and for each name kgen cannot show.

    os.scandir gives a name that is not UTF-8 with surrogate escapes, which no output
    can encode; such names, and names with control characters, are refused here.
    Every name that ends in a suffix is listed, `.yaml` and `..yaml` too (splitext sees
    no suffix there): skipping them would lose a file silently; its name is then refused.
    """
    try:
        with os.scandir(folder) as listing:
            entries = [e for e in listing if e.name.endswith(suffixes)]
    except OSError as exc:
        return [], [unlistable(shown, exc)]
    named, problems = [], []
    for entry in sorted(entries, key=lambda e: e.name):
        problem = _bad_name(f"{shown}/{entry.name}", entry.name)
        if problem is None:
            named.append(entry)
        else:
            problems.append(problem)
    return named, problems


def project_entries(
    root: Path,
    folder: Path,
    shown: str,
    suffixes: tuple[str, ...],
    problems: list[Problem],
) -> Iterator[tuple[str, os.DirEntry[str], bool]]:
    """Each entry of `folder` (shown as `shown`) that list_folder lists, by name, with
    the name problems carry (`shown/name`) and whether it is a link; into `problems`,
    those of list_folder and one for each link that leaves the project or cannot be
    resolved (a loop, an unreadable target), which is left out: a link is followed only
    while it stays inside the project.

    Entries, not paths: the listing already says which are links, so only links need
    resolving (a thousand `resolve()` calls cost 0.1 s)."""
    entries, unnamed = list_folder(folder, shown, suffixes)
    problems += unnamed
    for entry in entries:
        display = f"{shown}/{entry.name}"
        try:
            link = entry.is_symlink()
            if link and outside(root, Path(entry.path)):
                problems.append(escapes(display))
                continue
        except OSError as exc:  # a link loop (ELOOP), an unreadable target
            problems.append(cannot_read(display, exc))
            continue
        yield display, entry, link


def unlistable(shown: str, exc: OSError) -> Problem:
    reason = exc.strerror or type(exc).__name__
    return Problem(
        f"cannot read the folder {shown}: {reason}",
        "io",
        file=shown,
        hint="make the folder readable (and searchable) by the user running kgen",
    )


def _bad_name(display: str, name: str) -> Problem | None:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        message = "the file name is not valid UTF-8"
    else:
        if name.isprintable():
            return None
        message = "the file name has control or invisible characters"
    return Problem(
        f"{message}; kgen reads only files it can name in its output",
        "io",
        file=display,
        hint="rename the file (the name is shown with escapes)",
    )
