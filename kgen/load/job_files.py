"""Reading a project's job spec files: each entry of the jobs folder that is a regular
file inside the project, by name, as bytes (kgen.load.files); what kgen.load.jobs
parses, and what kgen.load.prefetch reads ahead on its thread. Imports nothing of the
models, so that thread has nothing to import."""

from __future__ import annotations

from pathlib import Path

from kgen.errors import Problem
from kgen.load.files import (
    cannot_read,
    escapes,
    list_folder,
    outside,
    read_input,
)

JOB_SUFFIXES = (".yaml", ".yml")


def read_job_files(
    root: Path, jobs: str, problems: list[Problem]
) -> list[tuple[str, bytes]]:
    """Each job spec file's name and bytes, in name order; a problem for each entry
    that is not a regular file inside the project, or cannot be read."""
    folder = root / jobs
    if outside(root, folder):
        problems.append(escapes(jobs, what="folder"))
        return []
    entries, unnamed = list_folder(folder, jobs, JOB_SUFFIXES)
    problems += unnamed
    read = []
    for entry in entries:
        display = f"{jobs}/{entry.name}"
        # Entries, not paths: the listing already says which are links and files, so
        # only links need resolving (a thousand `resolve()` calls cost 0.1 s).
        try:
            link = entry.is_symlink()
            if link and outside(root, Path(entry.path)):
                problems.append(escapes(display))
                continue
            if not entry.is_file():
                problems.append(_not_a_file(display))
                continue
        except OSError as exc:  # a link loop (ELOOP), an unreadable target
            problems.append(cannot_read(display, exc))
            continue
        reading = read_input(entry.path, display, root=root if link else None)
        if reading.raw is None:
            problems += [reading.problem] if reading.problem else []
        else:
            read.append((display, reading.raw))
    return read


def _not_a_file(display: str) -> Problem:
    return Problem(
        f"{display} is not a file",
        "io",
        file=display,
        hint="the jobs folder holds job spec files; move or rename this entry",
    )
