"""The output tree as it is on disk, and how it differs from what kgen renders now.

Everything here is read through descriptors opened without following links (see
kgen.output.safe_paths): the tree may only hold regular files and real folders, and anything
else in it (a link, a named pipe, a device) is reported, never followed or opened.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from kgen.errors import KgenError, printable
from kgen.output.digests import Digest
from kgen.output.early_scan import scan_tree
from kgen.output.index import Index, index_in
from kgen.output.safe_paths import (
    Refused,
    Unread,
    open_file,
    open_folder,
    open_root,
    read_all,
)
from kgen.output.scan import Scan, Stat, stat_of
from kgen.output.stat_record import TreeWatch
from kgen.output.tree_problems import refused_folder, unreadable

__all__ = [
    "SAME",
    "Contents",
    "OutputTree",
    "Scan",
    "TreeDiff",
    "compare",
    "read_current",
]


class Same:
    """A file that holds exactly the expected text: compared as it was read, and not
    kept (holding every file of a large tree at once cost as much memory as its text)."""

    def __repr__(self) -> str:
        return "SAME"


SAME = Same()
Contents = dict[str, "bytes | Unread | Same | None"]


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


class OutputTree:
    """The output root, open without following links (`fd` None while it does not
    exist); a context manager that closes it."""

    def __init__(
        self, output: str, fd: int | None, watch: TreeWatch | None = None
    ) -> None:
        self.output = output
        self.fd = fd
        # What earlier commands found in the tree (kgen.output.stat_record), kept
        # in the cache of the project at `root` where one is given.
        self.watch = watch or TreeWatch(None, output)
        # The files whose lstat the last scan found the recorded one (if the record
        # has any), until they are read.
        self.unchanged: set[str] | None = None

    @classmethod
    def open(cls, root: Path, output: str) -> OutputTree:
        base = open_root(root)
        watch = TreeWatch.of(root, output)
        try:
            return cls(output, open_folder(base, output), watch)
        except (FileNotFoundError, NotADirectoryError):
            return cls(output, None)
        except Refused as exc:
            raise KgenError(refused_folder(exc, output)) from None
        finally:
            os.close(base)

    @classmethod
    def below(
        cls, parent: int, name: str, output: str, *, root: Path | None = None
    ) -> OutputTree:
        """The output root `name` in the open folder `parent` (of project `root`)."""
        shown = output.rpartition("/")[0]
        watch = None if root is None else TreeWatch.of(root, output)
        try:
            return cls(output, open_folder(parent, name, shown=shown), watch)
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
        recorded = self.watch.old.stats
        found = Scan(recorded=recorded or None, unchanged=set() if recorded else None)
        if self.fd is not None:
            scan_tree(self.fd, self.output, found, self.watch)
        self.unchanged = found.unchanged  # the tree's, until it is read
        found.recorded = found.unchanged = None
        return found

    def read(self, limits: dict[str, int]) -> Contents:
        """Each path's bytes, unless it is over its limit (Unread); None where there is
        no regular file. A comparison needs no more than the expected size: a larger
        file differs, and is never read."""
        return self._read(limits, limits.__getitem__, None)

    def read_against(self, files: Mapping[str, str | Digest]) -> Contents:
        """`read` of the paths of `files`, SAME where a file holds exactly its text
        (or the text its digest stands for)."""
        return self._read(files, lambda path: _limit(files[path]), files)

    def _read(
        self,
        paths: Iterable[str],
        limit_of: Callable[[str], int],
        expected: Mapping[str, str | Digest] | None,
    ) -> Contents:
        """Each of `paths` read up to its `limit_of` (asked only of files read: the
        record vouches for the rest, 12,000 at 1,000 jobs)."""
        found: Contents = dict.fromkeys(paths)
        if self.fd is None:
            return found
        # The record to ask folder by folder, as each is read; where the scan found
        # the files with their recorded lstat, it has answered for them all at once,
        # and what it did not vouch for is read.
        record: TreeWatch | None = self.watch
        known: set[str] = set()
        if expected is not None and self.unchanged is not None:
            known = self.watch.vouched(self.unchanged, expected)
            found.update(dict.fromkeys(known, SAME))
            record = self.unchanged = None
        cut = len(self.output) + 1
        folders: dict[str, list[str]] = {}
        for path in found:
            if path not in known:
                folders.setdefault(path[cut : path.rindex("/")], []).append(path)
        for folder, inside in folders.items():
            _read_folder(
                self.fd, folder, inside, found, limit_of, expected, self.watch, record
            )
        return found


def _limit(text: str | Digest) -> int:
    """How much of a file to read to compare it with `text`: a file longer than the
    text's UTF-8 could be (4 bytes a character) differs."""
    return text.limit if isinstance(text, Digest) else 4 * len(text)


def _read_folder(
    output: int,
    folder: str,
    paths: list[str],
    found: Contents,
    limit_of: Callable[[str], int],
    expected: Mapping[str, str | Digest] | None,
    watch: TreeWatch | None = None,
    record: TreeWatch | None = None,
) -> None:
    """Read `paths` (in `folder`) into `found`; `watch` is told of the files found
    holding what is expected, and `record` (if not yet asked) says which are known."""
    try:
        fd = open_folder(output, folder)
    except (FileNotFoundError, NotADirectoryError, Refused):
        return  # no folder there, so none of its files
    except OSError as exc:
        raise KgenError(unreadable(paths[0].rpartition("/")[0], exc)) from None
    try:
        if record is not None and expected is not None:
            # A file whose lstat is the one recorded holds what it held.
            known, gone = record.known(fd, paths, expected)
            found.update(dict.fromkeys(known, SAME))
            paths = [p for p in paths if p not in known and p not in gone]
        for path in paths:
            # Anything but a regular file is reported by the scan, and never read.
            with contextlib.suppress(Refused):
                name = path.rpartition("/")[2]
                data, before = _read(fd, name, path, limit_of(path))
                found[path] = SAME if _holds(expected, path, data) else data
                if watch is not None and before is not None and found[path] is SAME:
                    watch.found(path, before)
    except OSError as exc:
        raise KgenError(unreadable(path, exc)) from None
    finally:
        os.close(fd)


def _read(
    folder: int, name: str, shown: str, limit: int
) -> tuple[bytes | Unread | None, Stat | None]:
    """kgen.output.safe_paths.read_file, with the file's stat before it was read."""
    fd = open_file(folder, name, shown)
    if fd is None:
        return None, None
    try:
        before = stat_of(os.fstat(fd))
    except OSError:
        os.close(fd)
        raise
    return read_all(fd, limit=limit), before


def _holds(
    expected: Mapping[str, str | Digest] | None,
    path: str,
    data: bytes | Unread | None,
) -> bool:
    if expected is None or not isinstance(data, bytes):
        return False
    text = expected[path]
    return text.holds(data) if isinstance(text, Digest) else data == text.encode()


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
