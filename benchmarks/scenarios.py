"""What `make bench` times kgen doing, each as a whole process on a generated project,
in turns with the floor it is set against: the cold build, a rebuild after one spec
changed, the CI check of an up-to-date tree with and without the cache, the
pre-commit validate of one changed spec, `--version`, and the cold build with one
worker and with two beside a CPU-bound neighbour.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from floors import PYTHON, WRITE, Floors
from generate import edit_spec, spec_path
from memory import tree_peak_mb
from timing import Figure, Trash, Variant, alternate

KGEN = [sys.executable, "-m", "kgen"]
EDITED_JOB = 7


class Paired(NamedTuple):
    """A kgen figure and its floor, timed in turns; the peak PSS of kgen's process
    tree in one more run (None where /proc cannot tell)."""

    figure: Figure
    floor_name: str
    floor: Figure
    tree_mb: float | None

    def as_json(self) -> dict[str, object]:
        return {
            "kgen": self.figure.as_json(),
            self.floor_name: self.floor.as_json(),
            "tree_pss_mb": None if self.tree_mb is None else round(self.tree_mb, 1),
        }

    def peak_mb(self) -> float:
        """The tree's PSS where known, else wait4's figure (see timing)."""
        return self.figure.maxrss_mb if self.tree_mb is None else self.tree_mb


class Project:
    """A generated project with its own cache folder and trash."""

    def __init__(self, root: Path, *, jobs: int, trash: Trash) -> None:
        self.root = root
        self.jobs = jobs
        self.trash = trash
        self.cache = root.parent / f"{root.name}-cache"
        self.env = {**os.environ, "KGEN_CACHE_DIR": str(self.cache)}
        self._epochs = itertools.count(1000)
        self.edited = min(EDITED_JOB, jobs - 1)

    @property
    def manifests(self) -> Path:
        return self.root / "manifests"

    def cold(self) -> None:
        """No output tree and no cache, as in a fresh clone that never built."""
        self.trash.move(self.manifests, self.cache)

    def no_cache(self) -> None:
        self.trash.move(self.cache)

    def edit(self) -> None:
        """A new epoch count for one job each time: new bytes and new output."""
        edit_spec(self.root, self.edited, next(self._epochs))

    def build(self) -> None:
        """An untimed build that leaves the tree and the cache up to date."""
        subprocess.run(
            [*KGEN, "build"],
            cwd=self.root,
            env=self.env,
            check=True,
            capture_output=True,
        )

    def kgen(
        self,
        *args: str,
        before: Callable[[], object] | None = None,
        env: dict[str, str] | None = None,
    ) -> Variant:
        return Variant(
            [*KGEN, *args], cwd=self.root, env=env or self.env, before=before
        )


EDITED = "{edited spec}"
# Each figure: its kgen arguments (EDITED: the spec `edit` changes), what runs
# untimed before each run, and its floor.
FIGURES: dict[str, tuple[tuple[str, ...], str | None, str]] = {
    "cold build": (("build",), "cold", WRITE),
    "rebuild, one spec edited": (("build",), "edit", WRITE),
    "build --check, cache": (("build", "--check"), None, WRITE),
    "build --check, no cache": (("build", "--check"), "no_cache", WRITE),
    "validate one changed spec": (
        ("validate", EDITED),
        "edit",
        PYTHON,
    ),
    "--version": (("--version",), None, PYTHON),
}


def kgen_figures(project: Project, floors: Floors, *, runs: int) -> dict[str, Paired]:
    """Every kgen figure but the workers', each after an untimed build that leaves
    the tree and the cache up to date."""
    figures = {}
    for name, (args, before, floor_name) in FIGURES.items():
        project.build()
        step = None if before is None else getattr(project, before)
        edited = str(spec_path(project.edited))
        kgen = project.kgen(*(edited if a == EDITED else a for a in args), before=step)
        timed = alternate(
            {"kgen": kgen, floor_name: floors.named(floor_name)}, runs=runs
        )
        tree = tree_peak_mb(kgen, after=project.trash.empty)
        figures[name] = Paired(timed["kgen"], floor_name, timed[floor_name], tree)
    project.build()
    return figures


def workers_beside_neighbour(project: Project, *, runs: int) -> dict[str, Figure]:
    """Cold builds with KGEN_WORKERS=1 and =2, in turns, while one process spins on a
    core (a CI runner shared with another job)."""
    neighbour = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        return alternate(
            {
                f"{n} worker{'s' * (n > 1)}": project.kgen(
                    "build",
                    before=project.cold,
                    env={**project.env, "KGEN_WORKERS": str(n)},
                )
                for n in (1, 2)
            },
            runs=runs,
            after=project.trash.empty,
        )
    finally:
        neighbour.kill()
        neighbour.wait()
