"""`kgen init [DIR]`: a working project in one command; never overwrites without
--force, and then says what it replaced."""

from __future__ import annotations

from pathlib import Path

from kgen.commands.outcome import EXIT_OK, EXIT_PROBLEMS, Options, Outcome, listed
from kgen.commands.outcome import report as report_problems
from kgen.errors import UsageError, printable
from kgen.output.generated import stale_files, write_files
from kgen.scaffold.project import (
    existing,
    gitignore,
    read_gitignore,
    scaffold,
    schema_files,
)

NEXT = "next: cd {folder} && kgen build && kgen validate, then commit"


def init(options: Options, folder: Path, *, force: bool) -> int:
    # The schemas come last: building them is most of init's time, and a place kgen
    # cannot write to is refused before any of it.
    files = scaffold(folder)
    _, problems = stale_files({**files, folder / ".gitignore": ""}, root=folder)
    if problems:
        report_problems(options, Outcome(None, None, problems))
        return EXIT_PROBLEMS
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
    for path in stale:
        problems = write_files(files, [path])
        if problems:
            report_problems(options, Outcome(None, None, problems))
            return EXIT_PROBLEMS
        if path in taken:
            options.err.write(f"replaced: {printable(path.as_posix())}\n")
    options.err.write(
        f"kgen: wrote a project ({len(stale)} files) in {printable(folder.as_posix())}\n"
        f"{NEXT.format(folder=printable(folder.as_posix()))}\n"
    )
    return EXIT_OK
