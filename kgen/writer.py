"""Write the output tree, or compare it with what is on disk (drift).

kgen owns what it lists in `<output>/.kgen-index`: it rewrites and removes only those
files, and refuses to overwrite a file it did not write. Each file is replaced
atomically (write beside, then rename), and unchanged files are left untouched.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from kgen.errors import Problem

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
    try:
        text = (root / index_path(output)).read_text(encoding="utf-8")
    except FileNotFoundError:
        return set()
    return {line for line in text.splitlines() if line and not line.startswith("#")}


def with_index(files: dict[str, str], output: str) -> dict[str, str]:
    listing = "".join(f"{path}\n" for path in sorted(files))
    return {**files, index_path(output): _INDEX_HEADER + listing}


def compare(root: Path, files: dict[str, str], *, output: str) -> TreeDiff:
    """How the tree on disk differs from `files` (which must include the index)."""
    diff = TreeDiff()
    for path, text in files.items():
        current = _read(root / path)
        if current is None:
            diff.missing.append(path)
        elif current != text:
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
    """Write `files` (index included); remove owned files no longer produced."""
    owned = read_index(root, output)
    foreign = [
        p
        for p, text in files.items()
        if p not in owned
        and p != index_path(output)
        and _read(root / p) not in (None, text)
    ]
    if foreign:
        return WriteSummary(), [_foreign(path) for path in foreign]
    summary = WriteSummary()
    for path, text in files.items():
        if _read(root / path) == text:
            summary.unchanged += 1
            continue
        _atomic_write(root / path, text)
        summary.written.append(path)
    for path in sorted(owned - files.keys()):
        target = root / path
        if target.is_file() and not target.is_symlink():
            target.unlink()
            summary.removed.append(path)
    return summary, []


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


def _files_under(root: Path, output: str) -> set[str]:
    base = root / output
    if not base.is_dir():
        return set()
    found = set()
    for dirpath, _dirs, names in os.walk(base):
        for name in names:
            found.add((Path(dirpath) / name).relative_to(root).as_posix())
    return found


def _atomic_write(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
