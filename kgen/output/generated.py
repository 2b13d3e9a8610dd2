"""Write the files `kgen argocd` and `kgen schema` generate, and check the folder `kgen
import` writes a project into: never through a link, and regular files only.

Inside the project every folder on the way is checked (a pull request can plant a
link); outside it, the folders are the user's own choice.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from kgen.errors import KgenError, Problem, UsageError
from kgen.output.safe_paths import Refused, open_file, open_folder, read_all, write_new

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
        if current != text.encode():
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
        write_new(os.fspath(partial), text.encode())
    except FileExistsError:
        os.unlink(partial)  # a leftover (or a planted link): removed, never followed
        write_new(os.fspath(partial), text.encode())
    os.replace(partial, path)


def _not_a_folder_on_the_way(path: Path) -> Path | None:
    for parent in path.parents:
        if parent.is_dir():
            return None
        if os.path.lexists(parent):
            return parent
    return None


def read_current(path: Path) -> bytes | None:
    """A generated file's bytes, or None if it is missing; never through a link, never
    anything but a regular file (Refused)."""
    return _read(path)


def _read(path: Path) -> bytes | None:
    try:
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        fd = open_file(folder, path.name, path.as_posix())
    finally:
        os.close(folder)
    if fd is None:
        return None
    data = read_all(fd, limit=MAX_GENERATED)
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


def check_import_folder(out: Path) -> None:
    """`kgen import --out DIR` writes a new project: DIR must be new or an empty real
    folder, not a link or below one inside the current folder."""
    linked = link_on_the_way(out, Path("."))
    if linked is not None:
        raise UsageError(
            f"{linked} is a symbolic link; import writes only real folders"
        )
    try:
        entries = os.listdir(out)
    except FileNotFoundError:
        return
    except NotADirectoryError:
        raise UsageError(
            f"{out} is not a folder; import writes a new project folder"
        ) from None
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return
        raise UsageError(f"cannot read {out}: {exc.strerror}") from None
    if entries:
        raise UsageError(f"{out} is not empty; import writes a new project folder")


def check_inside(out: Path, paths: list[str]) -> None:
    """Refuse, before anything is written, a path that would leave folder `out` (a
    name from an imported manifest such as `../../x`)."""
    bad = [path for path in paths if not _plain(path)]
    if bad:
        raise KgenError(
            *(
                Problem(
                    f"import would write {path}, which is not a plain path inside {out}/;"
                    " nothing was written",
                    "invalid-value",
                    file=out.as_posix(),
                    hint="a job's metadata.name must be a plain name: lowercase letters, digits and '-'",
                )
                for path in bad
            )
        )


def _plain(path: str) -> bool:
    parts = path.split("/")
    return (
        path.isprintable()
        and "\\" not in path
        and not path.startswith("/")
        and all(part not in ("", ".", "..") for part in parts)
    )


def write_all(out: Path, files: dict[str, bytes]) -> None:
    """Write the new project `files` into folder `out` (new or empty): all of them, or
    (on any error) none, with what was made removed again and the error raised."""
    new = [folder for folder in (out, *out.parents) if not folder.exists()]
    made: list[str] = []
    try:
        for path, data in files.items():
            write_inside(out, path, data)
            made.append(path)
    except OSError as exc:
        _undo(out, made, new_folders=new)
        where = exc.filename if isinstance(exc.filename, str) else out.as_posix()
        raise KgenError(
            Problem(
                f"cannot write the imported project: {exc.strerror or exc}; nothing"
                " was written",
                "io",
                file=out.as_posix(),
                hint=f"check that {where} can be written",
            )
        ) from None


def _undo(out: Path, made: list[str], *, new_folders: list[Path]) -> None:
    """Remove the files and folders an interrupted import made in `out` (which was
    new or empty), and `out` and its parents if the import made them, never following
    a link."""
    folders = {p.rpartition("/")[0] for p in made} - {""}
    with contextlib.suppress(OSError):
        base = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            for path in made:
                with contextlib.suppress(OSError):
                    os.unlink(path, dir_fd=base)
            for folder in sorted(folders, reverse=True):
                with contextlib.suppress(OSError):
                    os.rmdir(folder, dir_fd=base)
        finally:
            os.close(base)
        for made_folder in new_folders:
            made_folder.rmdir()


def write_inside(out: Path, path: str, data: bytes) -> None:
    """Create plain relative `path` inside folder `out`: folders on the way are made or
    opened without following links, and the file is created, never opened through one."""
    out.mkdir(parents=True, exist_ok=True)
    base = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    folder_path, _, name = path.rpartition("/")
    try:
        folder = open_folder(base, folder_path, create=True)
    finally:
        os.close(base)
    try:
        write_new(name, data, folder=folder)
    finally:
        os.close(folder)
