"""What in the output tree stops kgen from reading or replacing it, as problems.

A link, named pipe, socket or device anywhere in the tree; a file where kgen writes a
folder; a folder or file it cannot read; an output root reached through a link or a
non-folder. Each is reported where it is (at the index line when the index lists it).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from kgen.errors import Problem
from kgen.output.index_grammar import index_path
from kgen.output.safe_paths import Refused

if TYPE_CHECKING:
    from kgen.output.index import Index
    from kgen.output.scan import Scan


def tree_problems(
    scan: Scan, index: Index, files: Collection[str], *, output: str
) -> list[Problem]:
    """What in the tree stops kgen from reading or replacing it: anything but files and
    folders (at the index line, when the index lists it), and a file where kgen writes
    a folder."""
    problems = [
        _odd_listed(output, path, kind, index.lines[path])
        if path in index.lines
        else _odd(path, kind)
        for path, kind in sorted(scan.odd.items())
    ]
    problems += [
        _odd_listed(output, path, "a folder", index.lines[path])
        for path in sorted(scan.folders & index.lines.keys())
    ]
    folders = {path.rpartition("/")[0] for path in files}
    problems += [_file_for_folder(path) for path in sorted(folders & scan.files)]
    return problems


def _odd(path: str, kind: str) -> Problem:
    return Problem(
        f"{path} is {kind}; kgen's output folder holds only files and folders, and kgen"
        " never follows or opens anything else there",
        "io",
        file=path,
        hint="remove it: the output folder is kgen's alone",
    )


def _odd_listed(output: str, path: str, kind: str, line: int) -> Problem:
    return Problem(
        f"the index lists {path}, which is {kind}, not a file kgen wrote;"
        " kgen reads and removes only regular files it wrote",
        "io",
        file=index_path(output),
        line=line,
        column=1,
        hint=f"remove {path} (kgen writes it again), or restore the output folder from git",
    )


def _file_for_folder(path: str) -> Problem:
    return Problem(
        f"{path} is a file where kgen writes a folder",
        "io",
        file=path,
        hint="move the file out of the output folder",
    )


def unreadable(path: str, exc: OSError) -> Problem:
    return Problem(
        f"cannot read {path}: {exc.strerror or exc}",
        "io",
        file=path,
        hint="kgen must read the whole output folder: make it readable",
    )


def refused_folder(exc: Refused, output: str) -> Problem:
    """The problem of an output root that is, or lies below, a link or a non-folder."""
    if exc.path == output and exc.kind == "a symbolic link":
        return Problem(
            f"the output folder {output} is a symbolic link; kgen writes only real folders",
            "io",
            file=output,
        )
    if exc.path == output:
        message = f"the output folder {output} is {exc.kind}, not a folder"
    else:
        message = (
            f"{exc.path} is {exc.kind}; the output folder {output} must be reached"
            " through real folders inside the project"
        )
    return Problem(
        message,
        "io",
        file=exc.path,
        hint="replace it with a real folder, or choose another output in kgen.yaml",
    )


def foreign_file(path: str) -> Problem:
    return Problem(
        f"refusing to overwrite {path}: kgen did not write it",
        "foreign-file",
        file=path,
        hint="move the file out of the output folder, or delete it if kgen should own it",
    )
