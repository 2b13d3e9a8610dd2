"""What the output root holds: its files, its folders and anything else, walked
without following links (kgen.output.safe_paths)."""

from __future__ import annotations

import os
import struct
import sys
from collections.abc import Iterable, Mapping

from kgen.errors import KgenError, Problem
from kgen.output.safe_paths import Refused, describe, open_folder
from kgen.output.tree_problems import unreadable

# A file's lstat as kgen.output.stat_record keeps it: size, mtime_ns, ctime_ns, inode,
# device and mode, packed (44 bytes; a tuple of six ints took 250, a tree 120,000 times).
Stat = bytes
_STAT = struct.Struct("<QqqQQI")
# kgen writes two levels (<output>/<env>/<file>); a tree nested this deep is not its own,
# and walking it would hold a descriptor per level.
MAX_DEPTH = 32


class Scan:
    """What the output root holds, by path from the project root. A plain class: as a
    dataclass its methods were compiled from source at import (1% of a replayed
    `build --check`)."""

    def __init__(
        self,
        *,
        files: set[str] | None = None,
        recorded: Mapping[str, Stat] | None = None,
        unchanged: set[str] | None = None,
        folder_stats: dict[str, Stat] | None = None,
    ) -> None:
        self.files: set[str] = set() if files is None else files
        self.folders: set[str] = set()
        # Anything else (a link, a named pipe...), with what it is.
        self.odd: dict[str, str] = {}
        # The tree record's lstats, where it has files to vouch for; the scan then
        # notes the files whose lstat is the recorded one (`unchanged`), taken from the
        # entry it has in hand, not by a second walk of the tree
        # (kgen.output.stat_record).
        self.recorded = recorded
        self.unchanged = unchanged
        # Where asked for (kgen.output.early_scan): each folder's fstat, taken before
        # it was listed.
        self.folder_stats = folder_stats


def scan_below(folder: int, prefix: str, found: Scan, *, depth: int = 1) -> None:
    """Every entry below the open `folder` (shown as `prefix`) into `found`."""
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
    if found.folder_stats is not None:
        found.folder_stats[prefix] = stat_of(os.fstat(folder))
    recorded, unchanged = found.recorded, found.unchanged
    lookup, keep = None, None
    if recorded is not None and unchanged is not None:
        lookup, keep = recorded.get, unchanged.add
    add, intern, lead = found.files.add, sys.intern, f"{prefix}/"
    try:
        with os.scandir(folder) as entries:
            for entry in entries:  # 12,000 at 1,000 jobs: names bound outside
                # One string a path in the tree, the scan's, the index's and the
                # record's (kgen.output.tree): 120,000 at 10,000 jobs.
                path = intern(lead + entry.name)
                if entry.is_file(follow_symlinks=False):
                    add(path)
                    if lookup is None or keep is None or (was := lookup(path)) is None:
                        continue  # new to the record: read, whatever its lstat
                    try:
                        status = entry.stat(follow_symlinks=False)
                    except FileNotFoundError:
                        continue  # gone since the folder was listed
                    if stat_of(status) == was:
                        keep(path)
                elif entry.is_dir(follow_symlinks=False):
                    below.append(entry.name)
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
            scan_below(fd, path, found, depth=depth + 1)
        finally:
            os.close(fd)


def _kind(entry: os.DirEntry[str]) -> str:
    if entry.is_symlink():
        return "a symbolic link"
    return describe(entry.stat(follow_symlinks=False).st_mode)


def stat_of(status: os.stat_result) -> Stat:
    # Packed here, not through pack_stat: a call less a file (120,000 at 10,000 jobs).
    try:
        return _STAT.pack(
            status.st_size,
            status.st_mtime_ns,
            status.st_ctime_ns,
            status.st_ino,
            status.st_dev,
            status.st_mode,
        )
    except struct.error:  # a time past 2262 or before 1677 (`touch -d 2300-01-01`)
        return _STAT.pack(status.st_size, *map(_held, _times(status)), *_rest(status))


# Nanoseconds since 1970 as the packed lstat holds them: a time beyond is held at the
# bound, a future that kgen.output.racy never takes as settled (so never recorded).
_NS_MIN, _NS_MAX = -(1 << 63), (1 << 63) - 1


def _held(time_ns: int) -> int:
    return min(max(time_ns, _NS_MIN), _NS_MAX)


def _times(status: os.stat_result) -> tuple[int, int]:
    return status.st_mtime_ns, status.st_ctime_ns


def _rest(status: os.stat_result) -> tuple[int, int, int]:
    return status.st_ino, status.st_dev, status.st_mode


def pack_stat(
    size: int, mtime: int, ctime: int, inode: int, device: int, mode: int
) -> Stat:
    return _STAT.pack(size, mtime, ctime, inode, device, mode)


def mtime_of(status: Stat) -> int:
    mtime: int = _STAT.unpack(status)[1]
    return mtime


def ctime_of(status: Stat) -> int:
    ctime: int = _STAT.unpack(status)[2]
    return ctime


def same_but_ctime(one: Stat, other: Stat) -> bool:
    """Whether two lstats differ in nothing but the ctime (a hard link made or gone)."""
    return one[:16] == other[:16] and one[24:] == other[24:]


def lstat_tree(
    parent: int, name: str, output: str, paths: Iterable[str]
) -> dict[str, Stat]:
    """The lstat of each of `paths` in the output root `name` of folder `parent` that is
    there; a path below a link or a missing folder is left out."""
    try:
        folder = open_folder(parent, name)
    except (OSError, Refused):
        return {}
    try:
        return _lstat_below(folder, output, paths)
    finally:
        os.close(folder)


def _lstat_below(folder: int, output: str, paths: Iterable[str]) -> dict[str, Stat]:
    cut = len(output) + 1
    by_folder: dict[str, list[str]] = {}
    for path in paths:
        by_folder.setdefault(path[cut:].rpartition("/")[0], []).append(path)
    found: dict[str, Stat] = {}
    for sub, inside in by_folder.items():
        try:
            fd = open_folder(folder, sub)
        except (OSError, Refused):
            continue
        try:
            for path in inside:
                try:
                    status = os.stat(
                        path.rpartition("/")[2], dir_fd=fd, follow_symlinks=False
                    )
                except OSError:
                    continue
                found[path] = stat_of(status)
        finally:
            os.close(fd)
    return found
