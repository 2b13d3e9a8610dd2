"""Write the files `kgen init`, `kgen argocd` and `kgen schema` generate: never through
a link, and regular files only (the folder `kgen import` writes: kgen.output.import_folder).

Inside the project every folder on the way is checked (a pull request can plant a
link); outside it, the folders are the user's own choice.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from kgen.errors import Problem, printable, shortened
from kgen.output.safe_paths import (
    Refused,
    Unread,
    describe,
    open_file,
    read_all,
    write_new,
)

# The longest name of one file or folder that Linux and macOS file systems hold.
NAME_MAX = 255
# Generated files are a few KB; a larger file there differs, and is not read.
MAX_GENERATED = 16 * 1024 * 1024


def write_or_check(
    files: dict[Path, str], *, root: Path, check: bool
) -> tuple[list[Problem], list[Path]]:
    """Write the generated files whose text differs (unless `check`), and say which;
    write nothing if any of them is a link, below one or not a regular file."""
    stale, problems = stale_files(files, root=root)
    if not problems and not check:
        problems = write_files(files, stale)
    return (problems, []) if problems else ([], stale)


def write_files(files: dict[Path, str], paths: list[Path]) -> list[Problem]:
    """Write `paths` with their `files` text; at the first that cannot be written (a
    folder such as /proc or /sys, a name too long), a problem for it and no more."""
    for path in paths:
        try:
            write_file(path, files[path])
        except OSError as exc:
            return [unwritable(path, exc)]
    return []


def unwritable(path: Path, exc: OSError) -> Problem:
    """A problem at the place that refused: the folder that could not be made, or the
    first name too long (once, however many files lie below it)."""
    place = _refusing_place(path, exc)
    shown = shortened(printable(place.as_posix()), 200)
    return Problem(
        f"cannot write {shown}: {exc.strerror or exc}",
        "io",
        file=place.as_posix(),
        hint="choose a folder kgen can write to",
    )


def _refusing_place(path: Path, exc: OSError) -> Path:
    if exc.errno == errno.ENAMETOOLONG:
        for place in (*reversed(path.parents), path):
            if len(os.fsencode(place.name)) > NAME_MAX:
                return place
    named = Path(exc.filename) if isinstance(exc.filename, str) else path
    return named if named == path or named in path.parents else path


def stale_files(
    files: dict[Path, str], *, root: Path
) -> tuple[list[Path], list[Problem]]:
    """The generated files whose text on disk differs; problems for a path that is a
    link, lies below one, or is anything but a regular file."""
    stale, problems = [], []
    for path, text in files.items():
        try:
            problem = _stale_problem(path, text, root)
        except OSError as exc:  # a name too long, a folder that refuses a look
            problem = unwritable(path, exc)
        if problem is None:
            stale.append(path)
        elif problem is not _SAME:
            problems.append(problem)
    # One problem per place, however many files lie below it.
    return stale, list(dict.fromkeys(problems))


_SAME = Problem("the file holds the text already", "io")


def _stale_problem(path: Path, text: str, root: Path) -> Problem | None:
    """None if `path` must be written, _SAME if it holds `text`, else the problem."""
    linked = link_on_the_way(path, root)
    if linked is not None:
        return _linked(linked)
    blocked = _not_a_folder_on_the_way(path)
    if blocked is not None:
        # A FIFO or file where a folder must be: mkdir would fail (attack14 F13).
        kind = describe(os.lstat(blocked).st_mode)
        return _not_a_file(blocked, f"{kind} where a folder must be")
    try:
        current = _read(path)
    except Refused as exc:
        return _not_a_file(path, exc.kind)
    return _SAME if current == encoded(text) else None


def leftover_files(folder: Path, generated: set[Path]) -> list[Path]:
    """Regular files in `folder` named like the `generated` ones (`<prefix>-*` with the
    same suffix as theirs, a prefix one of theirs has) but not among them: what an
    earlier release generated there. Never a link, never below one."""
    suffixes = {"".join(path.suffixes) for path in generated}
    prefixes = {path.name.split("-", 1)[0] for path in generated}
    try:
        names = sorted(os.listdir(folder)) if not folder.is_symlink() else []
    except OSError:
        return []
    found = []
    for name in names:
        path = folder / name
        if path in generated or "-" not in name:
            continue
        if name.split("-", 1)[0] not in prefixes:
            continue
        if "".join(path.suffixes) not in suffixes:
            continue
        if not path.is_symlink() and path.is_file():
            found.append(path)
    return found


def write_file(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step: write a new file beside it, created
    without following links, and rename it over the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.kgen-new-{os.getpid()}")
    try:
        try:
            write_new(os.fspath(partial), encoded(text))
        except FileExistsError:
            os.unlink(
                partial
            )  # a leftover (or a planted link): removed, never followed
            write_new(os.fspath(partial), encoded(text))
        os.replace(partial, path)
    except (
        BaseException
    ):  # a full disk, Ctrl-C, SIGTERM (kgen.stopping): no partial left
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


def encoded(text: str) -> bytes:
    """The bytes of a generated file's text: a user's bytes that are not UTF-8 (kept in
    a merged .gitignore as surrogate escapes) come back as they were."""
    return text.encode("utf-8", errors="surrogateescape")


def _not_a_folder_on_the_way(path: Path) -> Path | None:
    for parent in path.parents:
        if parent.is_dir():
            return None
        if os.path.lexists(parent):
            return parent
    return None


def read_current(path: Path, *, limit: int = MAX_GENERATED) -> bytes | Unread | None:
    """A file's bytes, None if it is missing, Unread if it is over `limit` bytes; never
    through a link, never anything but a regular file (Refused)."""
    try:
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        fd = open_file(folder, path.name, path.as_posix())
    finally:
        os.close(folder)
    return None if fd is None else read_all(fd, limit=limit)


def _read(path: Path) -> bytes | None:
    data = read_current(path)
    return data if isinstance(data, bytes) else None


def link_on_the_way(path: Path, root: Path) -> Path | None:
    """The file itself if it is a symbolic link, or a linked folder above it inside
    `root`. Inside is where the folder lies once `..` is read: `$PWD/link/x` and
    `new/../link/x` are below the link at ./link as much as `link/x` is (and `new`,
    made on the way, is no link)."""
    if path.is_symlink():
        return path
    top = Path(os.path.abspath(root))
    for parent in path.parents:
        place = Path(os.path.abspath(parent))
        if place == top or not place.is_relative_to(top):
            continue
        if parent.is_symlink() or place.is_symlink():
            return parent
    return None


def link_problem(path: Path, root: Path) -> Problem | None:
    """The problem of a `path` that is a symbolic link or lies below one inside
    `root`, or None."""
    linked = link_on_the_way(path, root)
    return None if linked is None else _linked(linked)


def _linked(path: Path) -> Problem:
    return Problem(
        f"{path.as_posix()} is a symbolic link; kgen does not write through links",
        "io",
        file=path.as_posix(),
        hint="remove the link; kgen writes the file itself",
    )


def _not_a_file(path: Path, kind: str) -> Problem:
    folder = kind.endswith("where a folder must be")
    what = "folders and regular files" if folder else "regular files"
    return Problem(
        f"{path.as_posix()} is {kind}; kgen writes only {what}",
        "io",
        file=path.as_posix(),
        hint="remove it; kgen writes the file itself",
    )
