"""The job spec files of a project's jobs folder, each read through kgen.load.files
only if it changed since kgen last read it.

A project of 1,000 jobs is 1,000 files to open, stat, read and close in every run, to
learn that one changed. As kgen.output.stat_record does for the output tree (and git's
index for a work tree), the record keeps each job file's lstat (size, mtime, ctime,
inode, device and mode, to the nanosecond) as kgen read it, with the bytes it read and
their digest (the key kgen.pipeline.cache knows a job by). A file whose lstat is the
recorded one holds those bytes: writing a file, in place or by a rename over it, gives
it another ctime, which no one but the kernel sets. A file whose mtime or ctime was
not safely before the moment kgen took its lstat is never recorded (git's racy files,
kgen.output.racy.settled_both): a change in the same clock tick, its mtime
touched back, could leave it as it was.

Only a file that is neither a link nor anything but a regular file is taken from the
record: its lstat (mode included) must be the one taken through the descriptor it was
read from, which kgen.load.files opens without following links. Everything else (a
link inside the project, a FIFO, a folder) is read, or refused, as before.

The record lives in the user's cache folder beside the render cache, never in the
project (a pull request cannot plant one). One missing, damaged, from another kgen or
not a regular file reads as empty, and only plain data is unpickled; one that cannot
be written only costs time. Off with the cache (`--no-cache`, KGEN_NO_CACHE).
"""

from __future__ import annotations

import os
import pickle
import time
from pathlib import Path

from kgen.errors import Problem
from kgen.load.files import (
    cannot_read,
    escapes,
    kind_of,
    outside,
    project_entries,
    read_input,
    read_unlinked,
)
from kgen.output.racy import settled_both
from kgen.output.scan import Stat, stat_of
from kgen.pipeline.cache_file import (
    PlainUnpickler,
    open_cache_file,
    write_cache_file,
)
from kgen.pipeline.code import code_identity, digest

JOB_SUFFIXES = (".yaml", ".yml")
NAME = "job-files.record"  # a pickle, apart from the render cache's tables
# Far more than 10,000 job files of a few KB each; a larger one is not kgen's.
MAX_BYTES = 1 << 30
_STAT_BYTES = 44  # kgen.output.scan's packed lstat

# A job file as recorded: its lstat, its bytes and their key (kgen.pipeline.cache).
Entry = tuple[Stat, bytes, str]


class JobFiles:
    """One run's use of the record of the job files in the cache `folder` (None: off)."""

    def __init__(self, folder: Path | None) -> None:
        self.where = None if folder is None else folder / NAME
        self.old = _load(self.where)
        # Before any lstat this run takes: a file changed since has a later mtime.
        self.since = time.time_ns()
        # The entries this run found true, or made: what a save keeps.
        self.now: dict[str, Entry] = {}
        self.fresh = False

    def known(self, display: str, entry: os.DirEntry[str]) -> tuple[bytes, str] | None:
        """The bytes and key of the job file `display` (the folder's `entry`, no link)
        when its lstat is the recorded one; None when it has to be read."""
        was = self.old.get(display)
        if was is None:
            return None
        try:
            status = stat_of(entry.stat(follow_symlinks=False))
        except OSError:
            return None  # gone, or unreadable: the read says what
        if status != was[0]:
            return None
        self.now[display] = was
        return was[1], was[2]

    def read(self, display: str, status: Stat, raw: bytes, key: str) -> None:
        """The job file `display`, no link, was read as `raw` (with `key`) from a
        descriptor whose fstat before the read was `status` (packed: stat_of)."""
        if self.where is None:
            return
        if settled_both(status, self.since):
            entry = (status, raw, key)
            self.now[display] = entry
            self.fresh = self.fresh or self.old.get(display) != entry

    def save(self) -> None:
        """Keep what this run found, when it learnt something: entries of files gone
        or changed go then."""
        if self.where is None or not self.fresh:
            return
        data = pickle.dumps((code_identity(), self.now), protocol=5)
        write_cache_file(self.where, data)
        self.fresh = False


def read_jobs(
    root: Path, jobs: str, problems: list[Problem], record: JobFiles
) -> list[tuple[str, bytes, str]]:
    """Each job spec file's name, bytes and key (kgen.pipeline.cache) in the folder
    `jobs`, in name order (from `record` where it knows the file); a problem for each
    entry that is not a regular file inside the project, or cannot be read."""
    folder = root / jobs
    if outside(root, folder):
        problems.append(escapes(jobs, what="folder"))
        return []
    read: list[tuple[str, bytes, str]] = []
    listed = project_entries(root, folder, jobs, JOB_SUFFIXES, problems)
    for display, entry, link in listed:
        try:
            if not entry.is_file():
                problems.append(_not_a_file(display, entry.stat().st_mode))
                continue
        except OSError as exc:  # a link loop (ELOOP), an unreadable target
            problems.append(cannot_read(display, exc))
            continue
        if link:
            reading, status = read_input(entry.path, display, root=root), None
        elif (known := record.known(display, entry)) is not None:
            read.append((display, *known))
            continue
        else:
            reading, status = read_unlinked(entry.path, display)
        if reading.raw is None:
            problems += [reading.problem] if reading.problem else []
            continue
        key = digest(display, reading.raw)
        read.append((display, reading.raw, key))
        if status is not None:
            record.read(display, stat_of(status), reading.raw, key)
    return read


def _not_a_file(display: str, mode: int) -> Problem:
    return Problem(
        f"{display} is {kind_of(mode)}, not a file",
        "io",
        file=display,
        hint="the jobs folder holds job spec files; move or rename this entry",
    )


def _load(where: Path | None) -> dict[str, Entry]:
    if where is None:
        return {}
    # Unpickled as it is read, as the render cache's tables are: a damaged file (a
    # gigabyte of zeros) fails at its first byte, never held whole in memory.
    handle = open_cache_file(where, MAX_BYTES)
    if handle is None:
        return {}
    try:
        with handle:
            salt, table = PlainUnpickler(handle, ()).load()
    except Exception:
        return {}
    if salt != code_identity() or not isinstance(table, dict):
        return {}
    if not all(_is_entry(display, entry) for display, entry in table.items()):
        return {}
    return table


def _is_entry(display: object, entry: object) -> bool:
    return (
        isinstance(display, str)
        and isinstance(entry, tuple)
        and len(entry) == 3
        and isinstance(entry[0], bytes)
        and len(entry[0]) == _STAT_BYTES
        and isinstance(entry[1], bytes)
        and isinstance(entry[2], str)
    )
