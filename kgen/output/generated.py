"""Write the files `kgen init`, `kgen argocd` and `kgen schema` generate: never through
a link, and regular files only (the folder `kgen import` writes: kgen.output.import_folder).

Inside the project every folder on the way is checked (a pull request can plant a
link); outside it, the folders are the user's own choice.
"""

from __future__ import annotations

import os
from pathlib import Path

from kgen.errors import Problem
from kgen.output.safe_paths import Refused, Unread, open_file, read_all, write_new

# Generated files are a few KB; a larger file there differs, and is not read.
MAX_GENERATED = 16 * 1024 * 1024


def write_or_check(
    files: dict[Path, str], *, root: Path, check: bool
) -> tuple[list[Problem], list[Path]]:
    """Write the generated files whose text differs (unless `check`), and say which;
    write nothing if any of them is a link, below one or not a regular file."""
    stale, problems = stale_files(files, root=root)
    if problems:
        return problems, []
    for path in stale if not check else []:
        write_file(path, files[path])
    return [], stale


def stale_files(
    files: dict[Path, str], *, root: Path
) -> tuple[list[Path], list[Problem]]:
    """The generated files whose text on disk differs; problems for a path that is a
    link, lies below one, or is anything but a regular file."""
    stale, problems = [], []
    for path, text in files.items():
        linked = link_on_the_way(path, root)
        if linked is not None:
            problems.append(_linked(linked))
            continue
        blocked = _not_a_folder_on_the_way(path)
        if blocked is not None:
            # A FIFO or file where a folder must be: mkdir would fail (attack14 F13).
            problems.append(_not_a_file(blocked, "not a folder"))
            continue
        try:
            current = _read(path)
        except Refused as exc:
            problems.append(_not_a_file(path, exc.kind))
            continue
        if current != encoded(text):
            stale.append(path)
    # One problem per place, however many files lie below it.
    return stale, list(dict.fromkeys(problems))


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
        write_new(os.fspath(partial), encoded(text))
    except FileExistsError:
        os.unlink(partial)  # a leftover (or a planted link): removed, never followed
        write_new(os.fspath(partial), encoded(text))
    os.replace(partial, path)


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
    `root`."""
    if path.is_symlink():
        return path
    for parent in path.parents:
        if parent == root or root not in parent.parents:
            break
        if parent.is_symlink():
            return parent
    return None


def _linked(path: Path) -> Problem:
    return Problem(
        f"{path.as_posix()} is a symbolic link; kgen does not write through links",
        "io",
        file=path.as_posix(),
        hint="remove the link; kgen writes the file itself",
    )


def _not_a_file(path: Path, kind: str) -> Problem:
    what = "folders and regular files" if kind == "not a folder" else "regular files"
    return Problem(
        f"{path.as_posix()} is {kind}; kgen writes only {what}",
        "io",
        file=path.as_posix(),
        hint="remove it; kgen writes the file itself",
    )
