"""What `make bench` times kgen doing, each as a whole process on a generated project:
the cold build, a rebuild after one spec changed, the CI check of an up-to-date tree
with and without the cache, the pre-commit validate of one changed spec, `--version`,
and the cold build with one worker and with two beside a CPU-bound neighbour.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from generate import edit_spec, spec_path
from timing import Figure, Trash, measure, measure_alternating

KGEN = [sys.executable, "-m", "kgen"]
EDITED_JOB = 7


class Project:
    """A generated project with its own cache folder and trash."""

    def __init__(self, root: Path, *, jobs: int, trash: Trash) -> None:
        self.root = root
        self.jobs = jobs
        self.trash = trash
        self.cache = root.parent / f"{root.name}-cache"
        self.env = {**os.environ, "KGEN_CACHE_DIR": str(self.cache)}
        self._epochs = itertools.count(1000)

    @property
    def manifests(self) -> Path:
        return self.root / "manifests"

    def cold(self) -> None:
        """No output tree and no cache, as in a fresh clone that never built."""
        self.trash.move(self.manifests, self.cache)

    def no_cache(self) -> None:
        self.trash.move(self.cache)

    def edit(self) -> str:
        """A new epoch count for one job each time: new bytes and new output."""
        return str(edit_spec(self.root, EDITED_JOB, next(self._epochs)))

    def build(self) -> None:
        """An untimed build that leaves the tree and the cache up to date."""
        subprocess.run(
            [*KGEN, "build"],
            cwd=self.root,
            env=self.env,
            check=True,
            capture_output=True,
        )

    def time(
        self, *args: str, runs: int, before: Callable[[], object] | None = None
    ) -> Figure:
        return measure(
            [*KGEN, *args], cwd=self.root, runs=runs, env=self.env, before=before
        )


def kgen_figures(project: Project, *, runs: int) -> dict[str, Figure]:
    """Every kgen figure but the workers', in an order that leaves each run the state
    it needs (a tree and cache up to date unless the figure says otherwise)."""
    figures = {"cold build": project.time("build", runs=runs, before=project.cold)}
    project.build()
    figures["rebuild, one spec edited"] = project.time(
        "build", runs=runs, before=project.edit
    )
    project.build()
    figures["build --check, cache"] = project.time("build", "--check", runs=runs)
    figures["build --check, no cache"] = project.time(
        "build", "--check", runs=runs, before=project.no_cache
    )
    project.build()
    figures["validate one changed spec"] = project.time(
        "validate", str(spec_path(EDITED_JOB)), runs=runs, before=project.edit
    )
    figures["--version"] = project.time("--version", runs=runs)
    project.build()
    return figures


def workers_beside_neighbour(project: Project, *, runs: int) -> dict[str, Figure]:
    """Cold builds with KGEN_WORKERS=1 and =2, in turns, while one process spins on a
    core (a CI runner shared with another job)."""
    neighbour = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        return measure_alternating(
            [*KGEN, "build"],
            cwd=project.root,
            runs=runs,
            variants={
                "1 worker": {**project.env, "KGEN_WORKERS": "1"},
                "2 workers": {**project.env, "KGEN_WORKERS": "2"},
            },
            before=project.cold,
        )
    finally:
        neighbour.kill()
        neighbour.wait()
