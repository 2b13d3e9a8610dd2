"""Write the output tree, or compare it with what is on disk (drift).

kgen owns what it lists in `<output>/.kgen-index`: it rewrites and removes only those
files, and refuses to overwrite a file it did not write. A build stages the whole new
tree beside the old and swaps it in at once (kgen.atomic); a build that changes
nothing touches nothing.
"""

from __future__ import annotations

import difflib
import os
import shutil
import stat
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from kgen.atomic import build_lock, recover, staging_dir, swap_in
from kgen.errors import KgenError, Problem
from kgen.parallel import worker_count

T = TypeVar("T")
R = TypeVar("R")

INDEX = ".kgen-index"
_INDEX_HEADER = (
    "# Files kgen generated here; kgen removes them when no job produces them.\n"
)


@dataclass
class TreeDiff:
    modified: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.modified or self.missing or self.stale)


@dataclass
class WriteSummary:
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0


def index_path(output: str) -> str:
    return f"{output}/{INDEX}"


def read_index(root: Path, output: str) -> set[str]:
    return set(read_fingerprints(root, output))


def read_fingerprints(
    root: Path, output: str, *, only: Collection[str] | None = None
) -> dict[str, str | None]:
    """Owned paths, each with the fingerprint of its job spec when it is a job; with
    `only`, just those of these paths that are owned."""
    index = index_path(output)
    try:
        text = (root / index).read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except UnicodeDecodeError as exc:
        raise KgenError(
            _damaged_index(index, f"it is not UTF-8 text: {exc.reason}")
        ) from exc
    except OSError as exc:
        raise KgenError(
            _damaged_index(index, f"cannot read it: {exc.strerror}")
        ) from exc
    if only is not None and len(only) <= _FEW_LOOKUPS:
        lines = "\n" + text  # so that the first line starts after a line break too
        found = {
            path: _lookup(lines, path)
            for path in only
            if path and not path.startswith("#")  # as the full read skips them
        }
        return {path: mark for path, (owned, mark) in found.items() if owned}
    entries: dict[str, str | None] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            path, _, fingerprint = line.partition(" ")
            entries[path] = fingerprint or None
    return entries


def _damaged_index(index: str, why: str) -> Problem:
    # Which files kgen may replace or remove comes from the index: never guess it.
    return Problem(
        f"kgen's index of the files it wrote is damaged; {why}",
        "io",
        file=index,
        hint=f"restore it from git (git checkout -- {index}), then run kgen again",
    )


# A one-spec validate wants 4 of 12,000 lines: finding them in the text beats splitting
# it (0.1 ms against 10 ms).
_FEW_LOOKUPS = 64


def _lookup(text: str, path: str) -> tuple[bool, str | None]:
    """Whether the index text (after a line break, with line ends read as `\\n`) has a
    line for `path`, and that line's fingerprint."""
    needle = f"\n{path}"
    at = text.find(needle)
    while at != -1:
        end = at + len(needle)
        line_end = text.find("\n", end)
        rest = text[end : None if line_end == -1 else line_end]
        if not rest or rest[0] == " ":
            return True, rest[1:] or None
        at = text.find(needle, end)
    return False, None


def with_index(
    files: dict[str, str], output: str, *, fingerprints: dict[str, str] | None = None
) -> dict[str, str]:
    """`files` plus the index of what kgen owns; a job's line carries a fingerprint of
    its rendered spec, so a later run can tell a job changed without parsing YAML."""
    marks = fingerprints or {}
    listing = "".join(
        f"{path} {marks[path]}\n" if path in marks else f"{path}\n"
        for path in sorted(files)
    )
    return {**files, index_path(output): _INDEX_HEADER + listing}


def compare(
    root: Path,
    files: dict[str, str],
    *,
    output: str,
    current: dict[str, bytes | None] | None = None,
) -> TreeDiff:
    """How the tree on disk differs from `files` (which must include the index);
    `current` is what read_current gave for `files`, if the caller has it."""
    diff = TreeDiff()
    if current is None:
        current = read_current(root, list(files))
    for path, text in files.items():
        found = current[path]
        if found is None:
            diff.missing.append(path)
        elif found != text.encode():
            diff.modified.append(path)
    on_disk = read_index(root, output) | _files_under(root, output)
    diff.stale = sorted(p for p in on_disk if p not in files)
    return diff


def unified_diff(root: Path, files: dict[str, str], diff: TreeDiff) -> str:
    chunks: list[str] = []
    for path in sorted([*diff.modified, *diff.missing, *diff.stale]):
        old = _read(root / path) or ""
        new = files.get(path, "")
        chunks.extend(
            difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}"
            )
        )
    return "".join(chunks)


def write_tree(
    root: Path, files: dict[str, str], *, output: str
) -> tuple[WriteSummary, list[Problem]]:
    """Make the output root exactly `files` (index included) plus the files kgen does not
    own, in one atomic swap; a build that changes nothing touches nothing."""
    target = root / output
    if target.is_symlink():
        return WriteSummary(), [
            Problem(
                f"the output folder {output} is a symbolic link; kgen writes only real folders",
                "io",
                file=output,
            )
        ]
    with build_lock(target):
        recover(target)
        linked = _linked_folders(target)
        if linked:
            return WriteSummary(), [_linked(root, path) for path in linked]
        owned = read_index(root, output)
        current = read_current(root, list(files))
        foreign = [
            p
            for p, text in files.items()
            if p not in owned
            and p != index_path(output)
            and current[p] not in (None, text.encode())
        ]
        if foreign:
            return WriteSummary(), [_foreign(path) for path in foreign]
        diff = compare(root, files, output=output, current=current)
        stale_owned = [p for p in diff.stale if p in owned]
        summary = WriteSummary(sorted([*diff.modified, *diff.missing]), stale_owned)
        summary.unchanged = len(files) - len(summary.written)
        if summary.written or summary.removed:
            keep = _files_under(root, output) - owned - files.keys()
            try:
                changed = {*diff.modified, *diff.missing}
                same = {p for p in files if p not in changed}
                _stage_and_swap(root, files, output=output, keep=keep, same=same)
            except OSError as exc:
                # A full disk or a read-only folder: the old tree is still in place.
                reason = exc.strerror or str(exc)
                message = (
                    f"cannot write {output}/: {reason}; the previous tree is unchanged"
                )
                return WriteSummary(), [Problem(message, "io", file=output)]
    return summary, []


def _stage_and_swap(
    root: Path,
    files: dict[str, str],
    *,
    output: str,
    keep: set[str],
    same: set[str],
) -> None:
    """Stage the new tree beside the old and swap it in. Files kgen does not own, and
    its own files that did not change, are hard links to the old tree's (copies where
    links fail): neither tree's files are ever changed in place."""
    target = root / output
    staged = staging_dir(target)
    base, stage, cut = os.fspath(root), os.fspath(staged), len(output) + 1
    links = sorted(keep | same)
    writes = [(path, text) for path, text in files.items() if path not in same]

    def link(part: list[str]) -> None:
        for path in part:
            destination = os.path.join(stage, path[cut:])
            try:
                os.link(os.path.join(base, path), destination, follow_symlinks=False)
            except OSError:
                shutil.copy2(os.path.join(base, path), destination)

    def write(part: list[tuple[str, str]]) -> None:
        # Plain system calls, as for reading: a file object per file was a third of
        # the time of writing 12,000 files.
        for path, text in part:
            _write_new(os.path.join(stage, path[cut:]), text.encode())

    try:
        os.makedirs(stage, exist_ok=True)
        folders = {os.path.dirname(p[cut:]) for p in [*links, *(p for p, _ in writes)]}
        for folder in sorted(folders - {""}):
            os.makedirs(os.path.join(stage, folder), exist_ok=True)
        _threaded(link, _chunks(links))
        _threaded(write, _chunks(writes))
        swap_in(staged, target)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise


# Creating and linking thousands of files is mostly kernel time, which a thread per
# core overlaps: on the 2-core CI kind two threads write 12,000 files in 0.6x the time
# one takes. (Reading is not: from the page cache it is quick, and threads only
# contend for the interpreter.) Below _IO_MIN_FILES files one thread does it all.
_IO_MIN_FILES = 500


def _chunks(items: list[T]) -> list[list[T]]:
    """`items` in a run per core (up to 4), in order: files of a folder stay together."""
    threads = min(worker_count(), 4)
    if len(items) < _IO_MIN_FILES or threads < 2:
        return [items] if items else []
    size = -(-len(items) // threads)
    return [items[i : i + size] for i in range(0, len(items), size)]


def _threaded(func: Callable[[list[T]], R], chunks: list[list[T]]) -> list[R]:
    """`[func(c) for c in chunks]`, a thread per chunk; the first error is raised once
    every thread has finished."""
    if len(chunks) < 2:
        return [func(chunk) for chunk in chunks]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(chunks)) as pool:
        return list(pool.map(func, chunks))


def read_current(root: Path, paths: list[str]) -> dict[str, bytes | None]:
    """Each path's bytes on disk, None where missing or not a regular file."""
    base = os.fspath(root)
    return {path: _read_bytes(os.path.join(base, path)) for path in paths}


def _linked_folders(target: Path) -> list[Path]:
    """Symbolic links to folders inside the output root: writing below one would write
    wherever it points."""
    if not target.is_dir():
        return []
    found = []
    for dirpath, dirs, _names in os.walk(target):
        found += [Path(dirpath) / d for d in dirs if (Path(dirpath) / d).is_symlink()]
    return sorted(found)


def _linked(root: Path, path: Path) -> Problem:
    shown = path.relative_to(root).as_posix()
    return Problem(
        f"{shown} is a symbolic link to a folder; kgen writes only real folders",
        "io",
        file=shown,
        hint="remove the link; kgen builds the whole output folder itself",
    )


def _foreign(path: str) -> Problem:
    return Problem(
        f"refusing to overwrite {path}: kgen did not write it",
        "foreign-file",
        file=path,
        hint="move the file out of the output folder, or delete it if kgen should own it",
    )


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (
        FileNotFoundError,
        NotADirectoryError,
        IsADirectoryError,
        UnicodeDecodeError,
    ):
        return None


_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def _write_new(path: str, data: bytes) -> None:
    """Create `path` (it must not exist) holding `data`."""
    fd = os.open(path, _NEW_FILE, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _read_bytes(path: str) -> bytes | None:
    """A file's bytes; None when it is missing or not a regular file kgen could have
    written (a symbolic link counts as missing, so the build replaces it)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    # Plain system calls: a build reads every file of the tree, and a file object per
    # file costs a third of the time.
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            return None
        data = b""
        while chunk := os.read(fd, max(status.st_size - len(data), 0) + 4096):
            data += chunk
        return data
    finally:
        os.close(fd)


def _files_under(root: Path, output: str) -> set[str]:
    base = root / output
    if not base.is_dir():
        return set()
    found: set[str] = set()
    top = os.path.join(os.fspath(root), output)
    start = len(top) - len(output)  # each folder's path from the project root
    for dirpath, _dirs, names in os.walk(top):
        folder = dirpath[start:].replace(os.sep, "/")
        found.update(f"{folder}/{name}" for name in names)
    return found
