"""What `kgen validate PATHS...` covers: the files a pull request or pre-commit touched.

A job spec is checked in every environment; an overlay brings in every environment that
lists it, an object in resources/ every environment it goes into; kgen.yaml brings in
everything. Problems are reported for what is in scope,
so an unrelated broken file elsewhere does not block this change.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from kgen.errors import Problem, printable
from kgen.load.project import Overlay, Project
from kgen.spec.project import PROJECT_FILE

# The team's objects (kgen.resources.read.FOLDER, not imported: only a run that checks
# them loads kgen.resources).
FOLDER = "resources"


class Scope(NamedTuple):
    everything: bool
    jobs: frozenset[str]  # job files, relative to the project
    envs: frozenset[str]  # environments whose overlays changed
    files: frozenset[str]  # every input file in scope

    def selects(self, env: str, job_file: str) -> bool:
        return self.everything or job_file in self.jobs or env in self.envs

    @property
    def empty(self) -> bool:
        return not (self.everything or self.jobs or self.envs)

    def reports(self, problem: Problem) -> bool:
        # A problem's file is escaped (a refused file name): compared escaped too.
        if self.everything or problem.file is None:
            return True
        if problem.file in self.files:
            return True
        shown = {printable(f) for f in self.files}
        # A folder's problem (one below resources/<env>/) is about the files in it.
        inside = problem.file.rstrip("/") + "/"
        return problem.file in shown or any(f.startswith(inside) for f in shown)


def unreadable_paths(root: Path, paths: list[Path], *, cwd: Path) -> list[Problem]:
    """Paths `kgen validate` cannot check: missing, or outside the project. A file
    inside the project that is not an input (a README) is fine: pre-commit passes those."""
    problems = []
    for path in paths:
        full = cwd / path
        if not os.path.lexists(full):
            why = "does not exist"
        elif _relative(root, full) == full.as_posix():
            why = "is outside the project"
        else:
            continue
        problems.append(
            Problem(
                f"cannot validate this path: it {why}",
                "path-not-in-project",
                file=printable(str(path)),
                hint="name job specs, overlays or kgen.yaml inside the project; leave deleted files out",
            )
        )
    return problems


def scope_for(project: Project, paths: list[Path], *, cwd: Path) -> Scope:
    named = {_relative(project.root, cwd / p) for p in paths}
    if project.doc.file in named:
        return Scope(True, frozenset(), frozenset(), frozenset())
    jobs = frozenset(j.file for j in project.jobs if j.file in named)
    overlays = {o.name for o in project.overlays.values() if o.doc.file in named}
    overlays |= {
        Path(p).stem for p in named if p.startswith(f"{project.spec.overlays}/")
    }
    envs = frozenset(
        name
        for name, env in project.spec.environments.items()
        if overlays & set(env.overlays) or _holds_objects_of(named, name)
    )
    in_scope_overlays = {
        o.doc.file for name in envs for o in _overlays_of(project, name)
    }
    files = frozenset(
        {
            *jobs,
            *in_scope_overlays,
            *(p for p in named if p.startswith(f"{project.spec.jobs}/")),
        }
    )
    return Scope(
        False, jobs, envs, files | {f for f in named if f.endswith((".yaml", ".yml"))}
    )


def names_team_objects(root: Path, paths: Iterable[Path], *, cwd: Path) -> bool:
    """Whether a run over `paths` reports problems of the team's objects: a path in
    resources/, or kgen.yaml (everything). Otherwise each of their problems, located in
    its own file, is out of scope, and checking them is a twentieth of a one-spec
    validate."""
    named = {_relative(root, cwd / p) for p in paths}
    return PROJECT_FILE in named or any(p.split("/")[0] == FOLDER for p in named)


def _holds_objects_of(named: set[str], env: str) -> bool:
    """Whether a named file is a team object `env` gets (resources/, kgen.resources):
    its pods are checked under that environment's policy."""
    for path in named:
        parts = path.split("/")
        if parts[0] == FOLDER and (len(parts) == 2 or parts[1:2] == [env]):
            return True
    return False


def _overlays_of(project: Project, env: str) -> list[Overlay]:
    return [
        project.overlays[n]
        for n in project.spec.environments[env].overlays
        if n in project.overlays
    ]


def _relative(root: Path, path: Path) -> str:
    # os.path.realpath: Path.resolve raises RuntimeError on a link loop (Python 3.11).
    try:
        real = Path(os.path.realpath(path))
        return real.relative_to(os.path.realpath(root)).as_posix()
    except ValueError:
        return path.as_posix()
