"""The output tree as it is on disk, and how it differs from what kgen renders now.

Everything here is read through descriptors opened without following links (see
kgen.output.safe_paths): the tree may only hold regular files and real folders, and anything
else in it (a link, a named pipe, a device) is reported, never followed or opened.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from kgen.errors import KgenError, Problem, printable
from kgen.output.digests import Digest
from kgen.output.index import Index, index_in
from kgen.output.safe_paths import (
    Refused,
    Unread,
    describe,
    open_folder,
    open_root,
    read_file,
)
from kgen.output.tree_problems import refused_folder, unreadable


class Same:
    """A file that holds exactly the expected text: compared as it was read, and not
    kept (holding every file of a large tree at once cost as much memory as its text)."""

    def __repr__(self) -> str:
        return "SAME"


SAME = Same()
Contents = dict[str, "bytes | Unread | Same | None"]
# kgen writes two levels (<output>/<env>/<file>); a tree nested this deep is not its own,
# and walking it would hold a descriptor per level.
MAX_DEPTH = 32


@dataclass
class TreeDiff:
    modified: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    # Files kgen did not write (not in its index): a build keeps them, so they are not
    # stale, and lists them in no kustomization, so nothing applies them (attack F4).
    unowned: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.modified or self.missing or self.stale or self.unowned)

    def listing(self) -> str:
        """A `modified: PATH` line for each change (then missing, stale, unowned)."""
        return "".join(
            f"{label}: {printable(path)}{where_it_belongs(path) if label == 'unowned' else ''}\n"
            for label, paths in (
                ("modified", self.modified),
                ("missing", self.missing),
                ("stale", self.stale),
                ("unowned", self.unowned),
            )
            for path in paths
        )


def where_it_belongs(path: str) -> str:
    """Where a file kgen did not write in `<output>/<env>/` belongs: resources/."""
    parts = path.split("/")
    env = parts[-2] if len(parts) >= 3 else ""
    folder = f"resources/{printable(env)}/" if env else "resources/"
    return (
        f" (kgen did not write it and no kustomization lists it: move it to {folder},"
        " or resources/ for every environment)"
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

    def read(self, limits: dict[str, int]) -> Contents:
        """Each path's bytes, unless it is over its limit (Unread); None where there is
        no regular file. A comparison needs no more than the expected size: a larger
        file differs, and is never read."""
        return self._read(limits, None)

    def read_against(self, files: Mapping[str, str | Digest]) -> Contents:
        """`read` of the paths of `files`, SAME where a file holds exactly its text
        (or the text its digest stands for)."""
        limits = {
            path: text.limit if isinstance(text, Digest) else 4 * len(text)
            for path, text in files.items()
        }
        return self._read(limits, files)

    def _read(
        self, limits: dict[str, int], expected: Mapping[str, str | Digest] | None
    ) -> Contents:
        found: Contents = dict.fromkeys(limits)
        if self.fd is None:
            return found
        cut = len(self.output) + 1
        folders: dict[str, list[str]] = {}
        for path in found:
            folders.setdefault(path[cut:].rpartition("/")[0], []).append(path)
        for folder, inside in folders.items():
            _read_folder(self.fd, folder, inside, found, limits, expected)
        return found


def _read_folder(
    output: int,
    folder: str,
    paths: list[str],
    found: Contents,
    limits: dict[str, int],
    expected: Mapping[str, str | Digest] | None,
) -> None:
    try:
        fd = open_folder(output, folder)
    except (FileNotFoundError, NotADirectoryError, Refused):
        return  # no folder there, so none of its files
    except OSError as exc:
        raise KgenError(unreadable(paths[0].rpartition("/")[0], exc)) from None
    try:
        for path in paths:
            # Anything but a regular file is reported by the scan, and never read.
            with contextlib.suppress(Refused):
                name = path.rpartition("/")[2]
                data = read_file(fd, name, path, limit=limits[path])
                found[path] = SAME if _holds(expected, path, data) else data
    except OSError as exc:
        raise KgenError(unreadable(path, exc)) from None
    finally:
        os.close(fd)


def _holds(
    expected: Mapping[str, str | Digest] | None,
    path: str,
    data: bytes | Unread | None,
) -> bool:
    if expected is None or not isinstance(data, bytes):
        return False
    text = expected[path]
    return text.holds(data) if isinstance(text, Digest) else data == text.encode()


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
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                path = f"{prefix}/{entry.name}"
                if entry.is_dir(follow_symlinks=False):
                    below.append(entry.name)
                elif entry.is_file(follow_symlinks=False):
                    found.files.add(path)
                else:
                    found.odd[path] = _kind(entry)
    except OSError as exc:
        raise KgenError(unreadable(prefix, exc)) from None
    for name in below:
        path = f"{prefix}/{name}"
        try:
            fd = open_folder(folder, name, shown=prefix)
        except FileNotFoundError:
            continue
        except Refused as exc:
            found.odd[path] = exc.kind
            continue
        except OSError as exc:
            raise KgenError(unreadable(path, exc)) from None
        found.folders.add(path)
        try:
            _scan(fd, path, found, depth=depth + 1)
        finally:
            os.close(fd)


def _kind(entry: os.DirEntry[str]) -> str:
    if entry.is_symlink():
        return "a symbolic link"
    return describe(entry.stat(follow_symlinks=False).st_mode)


def read_current(tree: OutputTree, files: Mapping[str, str | Digest]) -> Contents:
    """What the tree holds at each path kgen writes, read no further than needed: a
    file longer than the text's UTF-8 could be (4 bytes a character) differs."""
    return tree.read_against(files)


def compare(
    scan: Scan,
    files: Mapping[str, str | Digest],
    current: Contents,
    *,
    scope: tuple[str, ...] = (),
) -> TreeDiff:
    """How the tree differs from `files` (index included): `current` is what
    read_current gave, `scan` what the tree holds; with `scope`, only files in those
    folders can be stale."""
    diff = TreeDiff()
    for path, text in files.items():
        found = current[path]
        if found is None:
            diff.missing.append(path)
        elif found is not SAME and (isinstance(text, Digest) or found != text.encode()):
            diff.modified.append(path)
    stale = scan.files - files.keys()
    diff.stale = sorted(p for p in stale if p.startswith(scope) or not scope)
    return diff
