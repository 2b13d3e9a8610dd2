"""`kgen init [DIR]`: a working project in one command; never overwrites without
--force, and then says what it replaced."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from kgen.commands.outcome import EXIT_OK, EXIT_PROBLEMS, Options, Outcome, listed
from kgen.commands.outcome import report as report_problems
from kgen.errors import Problem, UsageError, printable
from kgen.output.generated import (
    link_problem,
    stale_files,
    unwritable,
    write_files,
)
from kgen.scaffold.project import (
    existing,
    gitignore,
    read_gitignore,
    scaffold,
    schema_files,
)

_PROBE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
NEXT = "next: {cd}kgen build && kgen validate, then commit"


def init(options: Options, folder: Path, *, force: bool) -> int:
    # The schemas come last: building them is most of init's time, and a place kgen
    # cannot write to is refused before any of it.
    files = scaffold(folder)
    # The project folder named on the command line, and the folders on its way inside
    # the current one, are never a link either: a link planted there sends the whole
    # project elsewhere.
    linked = link_problem(folder, Path("."))
    _, problems = (
        (None, [linked])
        if linked is not None
        else stale_files({**files, folder / ".gitignore": ""}, root=folder)
    )
    made: list[Path] = []
    try:
        if not problems:
            problems = _try_folder(folder, made)
        if problems:
            report_problems(options, Outcome(None, None, problems))
            return EXIT_PROBLEMS
        code = _init(options, folder, files, made, force=force)
    except BaseException:
        # Stopped (Ctrl-C, SIGTERM) or refused: no empty project folder is left.
        _undo([], made)
        raise
    if code != EXIT_OK:
        _undo([], made)
    return code


def _init(
    options: Options,
    folder: Path,
    files: dict[Path, str],
    made: list[Path],
    *,
    force: bool,
) -> int:
    files |= schema_files(folder)
    taken = existing(files)
    if taken and not force:
        names = listed([printable(p.relative_to(folder).as_posix()) for p in taken])
        raise UsageError(
            f"{printable(folder.as_posix())} already has {names};"
            " kgen init never overwrites (--force replaces them)"
        )
    # .gitignore is merged, never replaced: a repository usually has one.
    files[folder / ".gitignore"] = gitignore(read_gitignore(folder))
    stale, problems = stale_files(files, root=folder)
    if problems:
        report_problems(options, Outcome(None, None, problems))
        return EXIT_PROBLEMS
    fresh = [path for path in stale if not os.path.lexists(path)]
    folders = _missing_folders(stale) + made
    try:
        problems = write_files(files, stale)
    except BaseException:
        _undo(fresh, folders)
        raise
    if problems:
        _undo(fresh, folders)
        report_problems(options, Outcome(None, None, problems))
        return EXIT_PROBLEMS
    for path in stale:
        if path in taken:
            options.err.write(f"replaced: {printable(path.as_posix())}\n")
    options.err.write(
        f"kgen: wrote a project ({len(stale)} files) in {printable(folder.as_posix())}\n"
        f"{NEXT.format(cd=_cd(folder))}\n"
    )
    return EXIT_OK


def _try_folder(folder: Path, made: list[Path]) -> list[Problem]:
    """Make `folder` (and the folders on the way) and a file in it, so that a place
    kgen cannot write to (/proc, a read-only mount, a name too long) is refused
    before the schemas are built. Each folder it makes goes into `made`, deepest
    first, as it is made: a signal may stop it at any moment (the caller undoes)."""
    probe = None
    try:
        for place in (*reversed(folder.parents), folder):
            if not os.path.lexists(place):
                made.insert(0, place)  # before it exists: see above
                try:
                    os.mkdir(place)
                except OSError:
                    made.pop(0)  # not made
                    raise
        probe = folder / f".kgen-init-{os.getpid()}-{os.urandom(4).hex()}"
        os.close(os.open(probe, _PROBE_FLAGS, 0o600))
        os.unlink(probe)
    except BaseException as exc:  # refused, or stopped (Ctrl-C, SIGTERM)
        _undo([] if probe is None else [probe], made)
        made.clear()
        if not isinstance(exc, OSError):
            raise
        return [unwritable(folder, exc)]
    return []


def _cd(folder: Path) -> str:
    """`cd DIR && `, or nothing when the project is the current folder."""
    if folder.resolve() == Path.cwd().resolve():
        return ""
    return f"cd {printable(folder.as_posix())} && "


def _missing_folders(paths: list[Path]) -> list[Path]:
    """The folders on the way to `paths` that do not exist yet, deepest first."""
    missing = {
        parent
        for path in paths
        for parent in path.parents
        if not os.path.lexists(parent)
    }
    return sorted(missing, key=lambda p: len(p.parts), reverse=True)


def _undo(fresh: list[Path], folders: list[Path]) -> None:
    """Remove what an init that failed part way made: the files that were not there
    before (never one it merged or replaced) and the folders it made, if empty."""
    for path in fresh:
        with contextlib.suppress(OSError):
            os.unlink(path)
    for folder in folders:
        with contextlib.suppress(OSError):
            os.rmdir(folder)
