"""The floors every kgen figure is set against, measured in the same run on the same
machine: a bare `python -c pass`, and writing kgen's output tree from memory
(write_floor.py). A ratio to a floor holds on every machine kind CI uses, where a
figure in seconds does not.
"""

from __future__ import annotations

import marshal
import sys
from pathlib import Path
from typing import NamedTuple

from timing import Figure, Trash, measure

HERE = Path(__file__).resolve().parent


class Floors(NamedTuple):
    """The floors of one project: its output tree's size, and the two timings."""

    files: int
    size: int
    write: Figure
    python: Figure

    def as_json(self) -> dict[str, object]:
        return {
            "files": self.files,
            "bytes": self.size,
            "write": self.write.as_json(),
            "python": self.python.as_json(),
        }


def snapshot(tree: Path, blob: Path) -> tuple[int, int]:
    """Dump every regular file under `tree` (its bytes and its path relative to
    tree's parent) into `blob`; return the file count and the total bytes."""
    files = [
        (str(path.relative_to(tree.parent)), path.read_bytes())
        for path in sorted(tree.rglob("*"))
        if path.is_file() and not path.is_symlink()
    ]
    blob.write_bytes(marshal.dumps(files))
    return len(files), sum(len(data) for _, data in files)


def write_floor(blob: Path, dest: Path, *, runs: int, trash: Trash) -> Figure:
    """Whole-process time of writing the snapshot into an empty `dest`."""
    return measure(
        [sys.executable, str(HERE / "write_floor.py"), str(blob), str(dest)],
        cwd=dest.parent,
        runs=runs,
        before=lambda: trash.move(dest),
    )


def python_floor(cwd: Path, *, runs: int) -> Figure:
    """A bare interpreter start and exit, the floor of any command."""
    return measure([sys.executable, "-c", "pass"], cwd=cwd, runs=runs)
