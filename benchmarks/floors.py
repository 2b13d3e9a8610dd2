"""The floors every kgen figure is set against, timed in the same run and in turns with
the figure: a bare `python -c pass`, and writing kgen's output tree from memory
(write_floor.py). A ratio to a floor holds on every machine kind CI uses, and on a
machine whose speed drifts, where a figure in seconds does not.
"""

from __future__ import annotations

import marshal
import sys
from pathlib import Path
from typing import NamedTuple

from timing import Trash, Variant

HERE = Path(__file__).resolve().parent
WRITE = "write"
PYTHON = "python -c pass"


class Floors(NamedTuple):
    """The floor commands of one project, and the size of its output tree."""

    write: Variant
    python: Variant
    files: int
    size: int

    def named(self, name: str) -> Variant:
        return {WRITE: self.write, PYTHON: self.python}[name]


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


def floors_for(tree: Path, work: Path, *, trash: Trash) -> Floors:
    """The floors of the output tree `tree`: its snapshot goes to `work`, and the
    write floor writes it into a folder of `work` moved aside before each run."""
    blob = work / "tree.marshal"
    files, size = snapshot(tree, blob)
    dest = work / "written"
    write = Variant(
        [sys.executable, str(HERE / "write_floor.py"), str(blob), str(dest)],
        cwd=work,
        before=lambda: trash.move(dest),
    )
    python = Variant([sys.executable, "-c", "pass"], cwd=work)
    return Floors(write=write, python=python, files=files, size=size)
