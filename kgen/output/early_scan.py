"""The output tree scanned by a second process while the build renders.

A build that writes a few files into a large tree lstats every file of it (12,000 at
1,000 jobs: 35-45 ms on the disk, a tenth of a one-spec rebuild), after its renders and
under the build lock, to learn which files are as the tree record (kgen.output.
stat_record) knows them. Where the machine has a core to spare and the record knows
many files, a child forked as soon as the project is loaded does that scan, against
the same record, while the parent renders; it sends back only what is not as recorded.

The scan is taken before the build lock and the recovery of a killed build, so it is
used only if nothing can have been added to, removed from or renamed in any folder of
the tree since: under the lock, each folder's fstat (inode, device, size, mtime and
ctime, to the nanosecond) must be the one the child took before listing it, and each
must have been last changed (mtime and ctime) safely before the child looked
(kgen.output.racy.settled_both: a change in the same clock tick would leave its
times as they were). Every way kgen or anyone changes a folder's entries (a build's
renames, a swap, a recovery, a link, a FIFO, a file removed or added) changes its
mtime and ctime. A file edited in place changes no folder: the child's lstat of it is
what the scan under the lock takes too, so an edit before the child looked is found as
before; one made while the build runs is found by the next, as one made between the
scan and the write always was (the record keeps what was seen before, never the edited
file's lstat; a swap, whose links give every file a new ctime, looks at the files the
child vouched for again first: relook). Anything the child could not do (an unreadable folder, a tree nested
too deep, a child that failed or is not done 20 ms after the build comes to its scan)
is left to the scan under the lock, which says what is wrong.
"""

from __future__ import annotations

import os
import pickle
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kgen.output.racy import settled_both
from kgen.output.safe_paths import Refused, open_below, open_folder
from kgen.output.scan import Scan, Stat, scan_below, stat_of
from kgen.output.stat_record import TreeWatch
from kgen.pipeline import forked

# Fewer recorded files than this are scanned in the time a fork takes.
MIN_FILES = 2_000
# What a child that found a few changes sends is a few KB. It sends no more than a
# pipe holds (kgen.pipeline.forked), so it never waits for the parent, holding its
# memory while the parent renders: a tree that changed that much is scanned by the build.
_MAX_BYTES = forked.PIPE_BYTES
# How long a build that comes to its scan waits for a child not yet done with it.
WAIT_S = 0.02


class _Early:
    def __init__(self, root: Path, output: str, watch: TreeWatch) -> None:
        self.root, self.output, self.watch = root, output, watch
        self.child: forked.Child | None = None
        # Before the child took any fstat or lstat.
        self.since = time.time_ns()


_pending: _Early | None = None


def start(root: Path, output: str) -> None:
    """Fork a child to scan `output` in project `root` against its record, if the
    machine has a core for it and the record knows enough files to pay."""
    global _pending
    if _pending is not None or not forked.can_fork():
        return
    watch = TreeWatch.of(root, output)
    if len(watch.old.stats) < MIN_FILES:
        return
    try:
        fd = open_below(root, output)
    except (OSError, Refused):
        return
    early = _Early(root, output, watch)
    recorded = watch.old.stats
    try:
        early.child = forked.fork(
            lambda: _child(fd, output, recorded),
            None,
            keep=(fd,),
            answer_limit=_MAX_BYTES,
        )
    finally:
        os.close(fd)
    if early.child is not None:
        watch.share(root)  # the watch the build's look at the tree takes
        _pending = early


def _child(fd: int, output: str, recorded: dict[str, Stat]) -> bytes:
    """In the child: what the scan of the tree found that is not as recorded."""
    found = Scan(recorded=recorded, unchanged=set(), folder_stats={})
    scan_below(fd, output, found)
    unchanged = found.unchanged
    assert unchanged is not None and found.folder_stats is not None
    other = [path for path in found.files if path not in unchanged]
    gone = [path for path in recorded if path not in unchanged]
    return pickle.dumps(
        (other, gone, sorted(found.folders), found.odd, found.folder_stats),
        protocol=5,
    )


def scan_tree(folder: int, output: str, found: Scan, watch: TreeWatch) -> None:
    """scan_below of the output root open as `folder`, under the build lock: from the
    early scan of it with `watch`'s record, where one was made and still holds."""
    early = take(output, watch)
    if early is not None and _fill(folder, output, found, early):
        watch.early = True  # its files looked at again before a swap (relook)
    else:
        scan_below(folder, output, found)


def take(output: str, watch: TreeWatch) -> tuple[Any, ...] | None:
    """What the early scan with `watch` found, once it is done; None without one."""
    global _pending
    early = _pending
    if early is None or early.output != output or early.watch is not watch:
        return None
    _pending = None
    data = _received(early)
    try:
        found: tuple[Any, ...] = pickle.loads(data) if data else ()
    except Exception:
        return None
    if len(found) != 5:
        return None
    return (*found, early.since)


def discard() -> None:
    """Stop an early scan nobody took (a build that ended before it wrote)."""
    global _pending
    early = _pending
    _pending = None
    if early is not None:
        early.watch.share(early.root, shared=False)
        _received(early, wait=0)


def _received(early: _Early, *, wait: float | None = None) -> bytes:
    """All the child sent (b"" if it failed), the child reaped. A child not done
    within `wait` seconds (WAIT_S) is stopped: on a machine busier than when it was
    forked the build does not wait long for it, and scans for itself."""
    assert early.child is not None
    within = WAIT_S if wait is None else wait
    return early.child.answer(within=within, limit=_MAX_BYTES) or b""


def _fill(folder: int, output: str, found: Scan, early: tuple[Any, ...]) -> bool:
    """Fill `found` from the early scan, if every folder it listed is as it was."""
    other, gone, folders, odd, folder_stats, since = early
    if not (
        isinstance(folder_stats, dict)
        and folder_stats.get(output) == stat_of(os.fstat(folder))
        and set(folder_stats) == {output, *folders}
        and all(settled_both(status, since) for status in folder_stats.values())
    ):
        return False
    cut = len(output) + 1
    for path in folders:
        try:
            fd = open_folder(folder, path[cut:])
        except (OSError, Refused):
            return False
        try:
            if stat_of(os.fstat(fd)) != folder_stats[path]:
                return False
        finally:
            os.close(fd)
    recorded = found.recorded or {}
    intern = sys.intern
    unchanged = recorded.keys() - set(gone)
    found.files = unchanged | {intern(path) for path in other}
    found.folders = set(folders)
    found.odd = dict(odd)
    if found.unchanged is not None:
        found.unchanged = unchanged
    return True


def relook(watch: TreeWatch, folder: int | None, paths: Iterable[str]) -> None:
    """Before a swap links `paths` of the output root open as `folder` into the new
    tree, the files an early scan vouched for, lstat'd again: one edited in place since
    the child looked, its mtime set back, differs from the record by its ctime alone,
    which the link sets anew (TreeWatch.written would trust it then). Such a file is
    left for the next command to read (`doubted`), as one changed after a scan under
    the build lock always was."""
    if not watch.early or folder is None:
        return
    cut, recorded = len(watch.output) + 1, watch.old.stats
    for path in watch.trusted.intersection(paths) - watch.seen.keys():
        try:
            now: Stat | None = stat_of(os.lstat(path[cut:], dir_fd=folder))
        except OSError:
            now = None
        if now != recorded.get(path):
            watch.doubted.add(path)
