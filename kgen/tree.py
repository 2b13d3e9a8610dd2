"""The output tree as it is on disk, and how it differs from what kgen renders now.

Everything here is read through descriptors opened without following links (see
kgen.safe_paths): the tree may only hold regular files and real folders, and anything
else in it (a link, a named pipe, a device) is reported, never followed or opened.
"""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from kgen.errors import KgenError, Problem, printable
from kgen.index import Index, index_in, index_path, refused_folder
from kgen.safe_paths import Refused, describe, open_folder, open_root, read_file

# kgen writes two levels (<output>/<env>/<file>); a tree nested this deep is not its own,
# and walking it would hold a descriptor per level.
MAX_DEPTH = 32


@dataclass
class TreeDiff:
    modified: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.modified or self.missing or self.stale)

    def listing(self) -> str:
        """A `modified: PATH` line for each change (then missing, then stale)."""
        return "".join(
            f"{label}: {printable(path)}\n"
            for label, paths in (
                ("modified", self.modified),
                ("missing", self.missing),
                ("stale", self.stale),
            )
            for path in paths
        )


@dataclass
class Scan:
    """What the output root holds, by path from the project root."""

    files: set[str] = field(default_factory=set)
    folders: set[str] = field(default_factory=set)
    # Anything else (a link, a named pipe...), with what it is.
    odd: dict[str, str] = field(default_factory=dict)


class OutputTree:
    """The output root, open without following links (`fd` None while it does not
    exist); a context manager that closes it."""

    def __init__(self, output: str, fd: int | None) -> None:
        self.output = output
        self.fd = fd

    @classmethod
    def open(cls, root: Path, output: str) -> OutputTree:
        base = open_root(root)
        try:
            return cls(output, open_folder(base, output))
        except (FileNotFoundError, NotADirectoryError):
            return cls(output, None)
        except Refused as exc:
            raise KgenError(refused_folder(exc, output)) from None
        finally:
            os.close(base)

    @classmethod
    def below(cls, parent: int, name: str, output: str) -> OutputTree:
        """The output root `name` in the open folder `parent`."""
        shown = output.rpartition("/")[0]
        try:
            return cls(output, open_folder(parent, name, shown=shown))
        except (FileNotFoundError, NotADirectoryError):
            return cls(output, None)
        except Refused as exc:
            raise KgenError(refused_folder(exc, output)) from None

    def __enter__(self) -> OutputTree:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def index(self) -> Index:
        return Index({}, {}) if self.fd is None else index_in(self.fd, self.output)

    def scan(self) -> Scan:
        found = Scan()
        if self.fd is not None:
            _scan(self.fd, self.output, found, depth=1)
        return found

    def read(self, paths: Iterable[str]) -> dict[str, bytes | None]:
        """Each path's bytes; None where there is no regular file."""
        found: dict[str, bytes | None] = dict.fromkeys(paths)
        if self.fd is None:
            return found
        cut = len(self.output) + 1
        folders: dict[str, list[str]] = {}
        for path in found:
            folders.setdefault(path[cut:].rpartition("/")[0], []).append(path)
        for folder, inside in folders.items():
            _read_folder(self.fd, folder, inside, found)
        return found


def _read_folder(
    output: int, folder: str, paths: list[str], found: dict[str, bytes | None]
) -> None:
    try:
        fd = open_folder(output, folder)
    except (OSError, Refused):
        return  # no folder there, so none of its files
    try:
        for path in paths:
            # Anything but a regular file is reported by the scan, and never read.
            with contextlib.suppress(Refused):
                found[path] = read_file(fd, path.rpartition("/")[2], path)
    finally:
        os.close(fd)


def _scan(folder: int, prefix: str, found: Scan, *, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise KgenError(
            Problem(
                f"{prefix} is nested {MAX_DEPTH} folders deep; kgen's output folder holds an environment's folder of files",
                "io",
                file=prefix,
                hint="move what is there out of the output folder",
            )
        )
    below = []
    with os.scandir(folder) as entries:
        for entry in entries:
            path = f"{prefix}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                below.append(entry.name)
            elif entry.is_file(follow_symlinks=False):
                found.files.add(path)
            else:
                found.odd[path] = _kind(entry)
    for name in below:
        path = f"{prefix}/{name}"
        try:
            fd = open_folder(folder, name, shown=prefix)
        except FileNotFoundError:
            continue
        except Refused as exc:
            found.odd[path] = exc.kind
            continue
        found.folders.add(path)
        try:
            _scan(fd, path, found, depth=depth + 1)
        finally:
            os.close(fd)


def _kind(entry: os.DirEntry[str]) -> str:
    if entry.is_symlink():
        return "a symbolic link"
    return describe(entry.stat(follow_symlinks=False).st_mode)


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


def compare(
    scan: Scan, files: dict[str, str], current: dict[str, bytes | None]
) -> TreeDiff:
    """How the tree differs from `files` (index included): `current` is what
    OutputTree.read gave for `files`, `scan` what the tree holds."""
    diff = TreeDiff()
    for path, text in files.items():
        found = current[path]
        if found is None:
            diff.missing.append(path)
        elif found != text.encode():
            diff.modified.append(path)
    diff.stale = sorted(scan.files - files.keys())
    return diff


def unified_diff(
    tree: OutputTree,
    files: dict[str, str],
    diff: TreeDiff,
    current: dict[str, bytes | None],
) -> str:
    """The changes as a unified diff; only regular files are read, and paths are shown
    with control characters escaped."""
    old = {**current, **tree.read(diff.stale)}
    chunks: list[str] = []
    for path in sorted([*diff.modified, *diff.missing, *diff.stale]):
        shown = printable(path)
        chunks.extend(
            difflib.unified_diff(
                _text(old.get(path)).splitlines(True),
                files.get(path, "").splitlines(True),
                f"a/{shown}",
                f"b/{shown}",
            )
        )
    return "".join(chunks)


def _text(data: bytes | None) -> str:
    if data is None:
        return ""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return ""
