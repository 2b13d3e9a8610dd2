"""One record of a whole run: what `kgen build --check` found, or a `kgen build` that
changed nothing, and every input it read.

A run whose inputs are all as they were, and whose output tree is as kgen last found
it (kgen.output.stat_record), finds what it found then: its problems and its verdict
come back from the record, without loading the project models or rendering a job.

The record's key is kgen's own code (its sources' stat, the Python and the dependency
versions, as kgen.pipeline.cache counts them), the project's real path, the command's
options and the bytes of kgen.yaml. The record holds what else the run read: the
overlays, the CRDs, and the jobs, overlays and resources folders (every entry's name
and kind, every file's bytes, the target of every link), and the identity of each path
kgen.output.root compares with the output folder. More than the run reads counts too:
a file in the jobs folder that is not a job spec, any file under resources/. Any
difference, and any file that cannot be read, is a miss: the slow path runs and says
what is wrong. Records live in the user's cache folder, never in the project, and
unpickle only plain data and kgen's Problem.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import stat
from pathlib import Path
from typing import NamedTuple

from kgen.errors import Problem
from kgen.output.scan import stat_of
from kgen.output.stat_record import settled
from kgen.pipeline.cache_file import MAX_TABLE_BYTES, PlainUnpickler, open_cache_file
from kgen.pipeline.code import code_identity

# A few dozen entries a folder at most are expected; a folder this large is read
# only by the slow path.
_MAX_ENTRIES = 100_000
_MAX_FILE_BYTES = 1024 * 1024
# A file's digest in a record's `sums`: only ever compared for a difference.
_SUM_BYTES = 8
_Data = bytes  # `bytes` is a method of _Reader's
_OPEN = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_ALLOWED = {
    ("builtins", name) for name in ("frozenset", "set", "tuple", "list", "dict")
} | {("kgen.errors", "Problem")}


class Watched(NamedTuple):
    """What a run read besides kgen.yaml: files, folders (with how deep their files
    are read) and paths whose identity (device, inode, type) counts."""

    files: tuple[str, ...]
    folders: tuple[tuple[str, int], ...]
    places: tuple[str, ...]


class RunRecord(NamedTuple):
    watched: Watched
    fingerprint: str
    # kgen.output.stat_record.tree_id of the tree the run expected (and found).
    tree: str
    output: str
    problems: tuple[Problem, ...]
    checked: tuple[str, ...]
    # The command's last line: `kgen: manifests/ is up to date (12005 files)`.
    message: str
    # A short digest of each file the fingerprint read, in the order it read them
    # (`fingerprint`'s `sums_into`): a replay stops at the first that differs.
    sums: tuple[bytes, ...] = ()


def run_key(root: Path, project_file: bytes, options: tuple[object, ...]) -> str:
    h = hashlib.sha256()
    for part in (code_identity(), os.path.realpath(root), repr(options)):
        h.update(repr(part).encode())
    h.update(project_file)
    return h.hexdigest()


def fingerprint(
    root: Path,
    watched: Watched,
    *,
    since: int | None = None,
    sums_into: list[bytes] | None = None,
    recorded_sums: tuple[bytes, ...] | None = None,
) -> str | None:
    """A digest of everything `watched` names, as it is now; None where something
    cannot be read (the slow path says what). With `since` (when a run started), None
    too if a file or folder may have changed after it: that run may have read it
    either way.

    `sums_into` gets a short digest of each file read, in order. `recorded_sums` is
    such a list from a record: the first file whose digest differs from its (or is
    read past its end) gives None at once. The fingerprint hashes the files' bytes in that
    order, so it would differ from the record's too: a one-spec edit reads as far as
    that spec, not every file of the jobs folder twice."""
    reader = _Reader(os.path.realpath(root), since, sums_into, recorded_sums)
    try:
        for name in watched.files:
            reader.file(os.path.join(root, name))
        for name, depth in watched.folders:
            reader.folder(os.path.join(root, name), depth)
        for name in watched.places:
            reader.update((name, _identity(os.path.join(root, name))))
    except (OSError, _Unread):
        return None
    return reader.hash.hexdigest()


class _Unread(Exception):
    pass


def _identity(path: str) -> tuple[object, ...]:
    found: list[object] = []
    for follow in (False, True):
        try:
            status = os.stat(path, follow_symlinks=follow)
            found.append((status.st_dev, status.st_ino, stat.S_IFMT(status.st_mode)))
        except OSError as exc:
            found.append(exc.errno)
    return tuple(found)


class _Reader:
    def __init__(
        self,
        top: str,
        since: int | None,
        sums_into: list[bytes] | None = None,
        recorded_sums: tuple[bytes, ...] | None = None,
    ) -> None:
        self.top = top
        self.since = since
        self.hash = hashlib.sha256()
        self.sums_into = sums_into
        self.recorded_sums = recorded_sums
        self.read = 0  # files read so far

    def update(self, part: object) -> None:
        self.hash.update(repr(part).encode())

    def _settled(self, status: os.stat_result) -> None:
        if self.since is not None and not settled(stat_of(status), self.since):
            raise _Unread("changed while kgen ran")

    def file(self, path: str) -> None:
        """The file's bytes, through a link only where it stays inside the project."""
        real = os.path.realpath(path)
        if not self._inside(real):
            raise _Unread(path)
        if real != path:
            self._settled(os.lstat(path))
        self.bytes(real)

    def _inside(self, real: str) -> bool:
        top = self.top
        return real == top or real.startswith(top.rstrip(os.sep) + os.sep)

    def bytes(self, path: str) -> None:
        """The regular file's bytes (never through a link), and their count."""
        fd = os.open(path, _OPEN | getattr(os, "O_NOFOLLOW", 0))
        try:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):
                raise _Unread(path)
            self._settled(status)
            data = b""
            while chunk := os.read(fd, _MAX_FILE_BYTES + 1 - len(data)):
                data += chunk
                if len(data) > _MAX_FILE_BYTES:
                    raise _Unread(path)
        finally:
            os.close(fd)
        self._sum(data)
        self.hash.update(len(data).to_bytes(8, "little"))
        self.hash.update(data)

    def _sum(self, data: _Data) -> None:
        into, recorded = self.sums_into, self.recorded_sums
        if into is None and recorded is None:
            return
        found = hashlib.blake2b(data, digest_size=_SUM_BYTES).digest()
        if into is not None:
            into.append(found)
        if recorded is not None and (
            self.read >= len(recorded) or recorded[self.read] != found
        ):
            raise _Unread("not the bytes the record read")
        self.read += 1

    def folder(self, path: str, depth: int) -> None:
        """Each entry's name and kind; the bytes of each file (`depth` levels down)."""
        self.update(("folder", path, _identity(path)))
        if not os.path.lexists(path):
            return
        real = os.path.realpath(path)
        if not self._inside(real):
            raise _Unread(path)
        self.update(real)
        self._settled(os.stat(real))
        with os.scandir(real) as listing:
            entries = sorted(listing, key=lambda e: e.name)
        if len(entries) > _MAX_ENTRIES:
            raise _Unread(path)
        for entry in entries:
            if entry.is_symlink():
                self.update((entry.name, "link", os.path.realpath(entry.path)))
                if depth and entry.is_file():
                    self.file(entry.path)
            elif entry.is_dir(follow_symlinks=False):
                self.update((entry.name, "folder"))
                if depth > 1:
                    self.folder(entry.path, depth - 1)
            elif entry.is_file(follow_symlinks=False):
                self.update((entry.name, "file"))
                if depth:
                    self.bytes(entry.path)
            else:
                self.update((entry.name, "other"))


def _where(folder: Path, command: str) -> Path:
    """One record a command (the last one made), so that records do not pile up."""
    return folder / f"run-{command.replace(' --', '-')}.pickle"


def load_run(folder: Path, command: str, key: str) -> RunRecord | None:
    handle = open_cache_file(_where(folder, command), MAX_TABLE_BYTES)
    if handle is None:
        return None
    try:
        with handle:
            found, fields = PlainUnpickler(handle, _ALLOWED).load()
        files, folders, places = fields[0]
        record = RunRecord(Watched(files, folders, places), *fields[1:])
    except Exception:
        return None
    if found != key or not all(isinstance(p, Problem) for p in record.problems):
        return None
    if not isinstance(record.sums, tuple) or not all(
        isinstance(s, bytes) for s in record.sums
    ):
        return None
    return record


def save_run(folder: Path, command: str, key: str, record: RunRecord) -> None:
    path = _where(folder, command)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fields = (tuple(record.watched), *record[1:])
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(partial, "xb") as handle:  # never through what is there
            pickle.dump((key, fields), handle, protocol=5)
        os.replace(partial, path)
    except OSError:  # a record that cannot be written only costs time
        with contextlib.suppress(OSError):
            os.unlink(partial)
