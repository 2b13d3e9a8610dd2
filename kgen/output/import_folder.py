"""Check the folder `kgen import` writes a project into, and write it there: all of its
files or none, never through a link, never outside it."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from kgen.errors import KgenError, Problem, UsageError, printable, shortened
from kgen.output.generated import link_on_the_way
from kgen.output.safe_paths import open_folder, write_new
from kgen.stopping import Stopped


def check_import_folder(out: Path) -> None:
    """`kgen import --out DIR` writes a new project: DIR must be new or an empty real
    folder, not a link or below one inside the current folder."""
    try:
        linked = link_on_the_way(out, Path("."))
    except OSError as exc:  # a name too long
        raise UsageError(
            f"cannot use {shortened(printable(out.as_posix()), 200)} as the folder"
            f" to import into: {exc.strerror}"
        ) from None
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
        raise UsageError(
            f"{out} is not empty; import writes a new project folder: import into a"
            " new one (--out imported) and move the jobs/ it writes into your project"
        )


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
            made.append(path)  # first: a signal may land as soon as the file exists
            write_inside(out, path, data)
    except (KeyboardInterrupt, Stopped):  # Ctrl-C, SIGTERM, SIGHUP (kgen.stopping)
        _undo(out, made, new_folders=new)
        raise
    except OSError as exc:
        if isinstance(exc, FileExistsError):
            made.pop()  # created by someone else meanwhile: not the import's
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
