"""What kgen last found in its output tree, so a file seen unchanged is not read again.

As git's index does, the record keeps, for each file kgen read and found to hold what it
renders, the file's lstat (size, mtime, ctime, inode, device, mode) and what it held (a
digest of its text, or of its kgen.output.digests.Digest). A file whose lstat is the
recorded one still holds that; anything else is read and compared. Times are compared to
the nanosecond, and a file whose mtime was not safely before the moment its lstat was
taken is never recorded (git's "racy" files): a change in the same clock tick could
leave size and times as they were. After a build's swap, the files it carried over by
hard links (whose ctime the links changed) are recorded again if their size, mtime,
inode, device and mode are those kgen compared: a file rewritten in place with its mtime
set back, in the moment between the two, would keep the record's trust.

The record lives in the user's cache folder, never in the project (a pull request
cannot plant one), one per output folder by its real path and device
(kgen.output.record_store). A record missing, unreadable, corrupt, from another kgen or
of another folder is ignored, and only plain data is unpickled. `KGEN_NO_CACHE` turns
it off: every file is read.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Container, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from kgen.output.digests import Digest
from kgen.output.racy import settled, settled_both
from kgen.output.record_store import TreeRecord, load_record, record_file, save_record
from kgen.output.scan import Stat, lstat_tree, same_but_ctime, stat_of

if TYPE_CHECKING:
    from kgen.output.scan import Scan

__all__ = [
    "TreeRecord",
    "TreeWatch",
    "held",
    "load_record",
    "record_file",
    "save_record",
    "settled",
    "settled_both",
    "tree_id",
]

_HELD = hashlib.blake2b(digest_size=16)
_HEADER = hashlib.blake2b(digest_size=8, person=b"kgen-hdr")
# Each header's hash, by the header (a render's files share one string): far more
# headers than 10,000 jobs in 15 environments make is not kept.
_HEADERS: dict[str, bytes] = {}
_MAX_HEADERS = 200_000


def held(expected: str | Digest) -> bytes:
    """What a file holding `expected` (a text, or a digest) holds, as recorded: 16
    bytes of BLAKE2b over the text; or for a digest, 8 bytes of BLAKE2b over its header
    and the first 16 of its SHA-256 (whose body has one size). The two never have the
    same length."""
    if isinstance(expected, Digest):
        header = expected[0]
        # A render's files share one header (kgen.output.tree): hashed once for them
        # all, and the SHA-256 the cache has is used as it is. Half the time of
        # hashing a string of all three, 12,000 times a rebuild.
        mark = _HEADERS.get(header)
        if mark is None:
            if len(_HEADERS) >= _MAX_HEADERS:
                _HEADERS.clear()
            mark = _HEADERS[header] = _header_mark(header)
        try:
            return mark + bytes.fromhex(expected[1][:32])
        except (TypeError, ValueError):  # a damaged cache's digest: held by no file
            return b"damaged"
    h = _HELD.copy()  # a quarter faster than a new hash, 12,000 times a rebuild
    h.update(b"t\0" + expected.encode())
    return h.digest()


def _header_mark(header: str) -> bytes:
    h = _HEADER.copy()
    h.update(header.encode())
    return h.digest()


def tree_id(
    files: Mapping[str, str | Digest], helds: Mapping[str, bytes] | None = None
) -> str:
    """One digest of a whole tree: its paths and what each holds (`helds`, where
    already worked out)."""
    h = hashlib.sha256()
    for path in sorted(files):
        found = helds[path] if helds is not None else held(files[path])
        h.update(path.encode() + b"\0" + found)
    return h.hexdigest()


# Watches made for a command's early scan (TreeWatch.share), until it looks at the tree.
_EARLY: dict[tuple[str, str], TreeWatch] = {}


class TreeWatch:
    """One command's use of the record: what it trusted or read, and what it saves."""

    def __init__(self, where: Path | None, output: str) -> None:
        self.where = where
        self.output = output
        self.old = load_record(where)
        self.on = where is not None
        # When this command started looking (before any lstat it takes).
        self.since = time.time_ns()
        # Files read and found holding what kgen renders, with their lstat before
        # the read; and the files the record vouched for (their lstat is the record's).
        self.seen: dict[str, Stat] = {}
        self.trusted: set[str] = set()
        # Whether this command's scan was an early one (kgen.output.early_scan).
        self.early = False
        self.doubted: set[str] = set()

    @classmethod
    def of(cls, root: Path, output: str) -> TreeWatch:
        """The watch of `output` in project `root`: the one an early scan
        (kgen.output.early_scan) compared the tree with, if one did."""
        early = _EARLY.pop((os.fspath(root), output), None)
        return early if early is not None else cls(record_file(root, output), output)

    def share(self, root: Path, *, shared: bool = True) -> None:
        """Be the watch the next TreeWatch.of(root, output) gives (or no longer)."""
        if shared:
            _EARLY[(os.fspath(root), self.output)] = self
        elif _EARLY.get((os.fspath(root), self.output)) is self:
            del _EARLY[(os.fspath(root), self.output)]

    def known(
        self, folder: int, paths: list[str], expected: Mapping[str, str | Digest]
    ) -> tuple[set[str], set[str]]:
        """Of `paths` (files in the open `folder`), those whose lstat is the recorded
        one, and so hold what they held, if that is what is `expected`; and those the
        record has that are gone."""
        stats, helds = self.old.stats, self.old.held
        known: set[str] = set()
        gone: set[str] = set()
        lstat = os.lstat
        for path in paths:  # 12,000 at 1,000 jobs
            was = stats.get(path)
            if was is None:
                continue
            try:
                s = lstat(path[path.rindex("/") + 1 :], dir_fd=folder)
            except FileNotFoundError:
                gone.add(path)
                continue
            now = stat_of(s)
            if now == was and helds.get(path) == held(expected[path]):
                known.add(path)
        self.trusted |= known
        return known, gone

    def vouched(
        self, unchanged: Iterable[str], expected: Mapping[str, str | Digest]
    ) -> set[str]:
        """Of the files whose lstat the scan found the recorded one (`unchanged`),
        those of `expected` that held what is expected of them now: known without
        a read."""
        expected_get, held_get = expected.get, self.old.held.get
        known = {
            path
            for path in unchanged  # 12,000 at 1,000 jobs
            if (wanted := expected_get(path)) is not None
            and held_get(path) == held(wanted)
        }
        if self.trusted:
            self.trusted |= known
        else:
            self.trusted = known  # one set of them, not two (120,000 at 10,000 jobs)
        return known

    def found(self, path: str, status: Stat) -> None:
        """The file at `path`, whose lstat before it was read is `status`, holds what
        kgen renders."""
        self.seen[path] = status

    def verified(
        self,
        files: Mapping[str, str | Digest],
        *,
        whole: bool,
        scan: Scan,
    ) -> None:
        """Save what this command found; `whole`: the command looked at every file
        (the tree is `files` exactly if the `scan` of it found no other)."""
        if not self.on:
            return
        exact = whole and not scan.odd and scan.files == files.keys()
        if (
            exact
            and self.old.tree
            and len(self.trusted) == len(files) == len(self.old.stats)
            and self.old.folders == scan.folders
        ):
            return  # every file as recorded, holding what it held: the same record
        record = self._kept(files) if not whole else TreeRecord()
        self._keep_trusted(record)
        for path, status in self.seen.items():
            if path not in self.trusted and settled(status, self.since):
                record.stats[path] = status
                record.held[path] = held(files[path])
        if exact and record.stats.keys() >= files.keys():
            record.tree = tree_id(files, record.held)
            record.folders = frozenset(scan.folders)
        if record != self.old:
            save_record(self.where, record)

    def _keep_trusted(self, record: TreeRecord, changed: Container[str] = ()) -> None:
        """Into `record`, the old record's entries of the files it vouched for (but
        those `changed`), in its order."""
        trusted, helds = self.trusted, self.old.held
        stats = {
            p: s for p, s in self.old.stats.items() if p in trusted and p not in changed
        }
        record.stats.update(stats)
        record.held.update({path: helds[path] for path in stats})

    def _kept(
        self, files: Mapping[str, str | Digest], gone: Container[str] = ()
    ) -> TreeRecord:
        """The old record's files this command did not look at (another environment's,
        in a build or check of some), but those `gone`."""
        record = TreeRecord()
        for path, status in self.old.stats.items():
            if path not in files and path not in gone:
                record.stats[path] = status
                record.held[path] = self.old.held[path]
        return record

    def rewrote(self, files: Mapping[str, str | Digest], changed: set[str]) -> None:
        """Save the record after `changed` were written or removed in place, unless
        it has nothing new and no tree to forget: its entries for `changed` match no
        file now (each rename gave the path another inode and ctime), so they vouch
        for nothing, and rewriting 12,000 entries to drop five would change nothing."""
        if not self.on:
            return
        seen, since = self.seen, self.since
        new = [s for p, s in seen.items() if p not in self.trusted and p not in changed]
        if not (self.old.tree or any(settled(s, since) for s in new)):
            return
        record = self._kept(files, changed)
        self._keep_trusted(record, changed)
        for path, status in seen.items():
            if (
                path not in self.trusted
                and path not in changed
                and settled(status, since)
            ):
                record.stats[path] = status
                record.held[path] = held(files[path])
        save_record(self.where, record)

    def written(
        self,
        parent: int,
        name: str,
        files: Mapping[str, str | Digest],
        *,
        linked: set[str],
    ) -> None:
        """Save the record of the tree just swapped in as output root `name` of folder
        `parent`. A file kgen wrote is recorded when a later command reads it (its
        mtime is this command's). A file carried over by a hard link keeps what it held
        if nothing but its ctime (the link) changed since it was seen."""
        if not self.on:
            return
        now = lstat_tree(parent, name, self.output, linked)
        record = TreeRecord()
        seen, old = self.seen, self.old.stats
        for path, status in now.items():
            if path in self.doubted:
                continue  # changed after an early scan vouched for it (relook)
            before = seen.get(path) or old.get(path)
            if before is None or not same_but_ctime(before, status):
                continue  # changed since it was seen, more than its ctime
            if path in self.seen and path not in self.trusted:
                if not settled(before, self.since):
                    continue
                record.held[path] = held(files[path])
            elif path in self.old.held:  # the record's, vouched for or not looked at
                record.held[path] = self.old.held[path]
            else:  # pragma: no cover - stats and held are kept together
                continue
            record.stats[path] = status
        save_record(self.where, record)
