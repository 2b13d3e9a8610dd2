"""The team's objects that would be the output file of an object a job renders: one
file, two sources. Worked out from the file names alone (no object's text), so that
`kgen validate` finds what `kgen build` would refuse."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from kgen.errors import Problem
from kgen.load.jobs import located
from kgen.resources.check import TeamObject, file_key, file_name
from kgen.resources.read import read_resources
from kgen.spec.fields import dns_subdomain_problem

if TYPE_CHECKING:
    from pathlib import Path

    from kgen.pipeline.records import RunResult


class Clashes:
    """The problems (each with the environments it is in), and each environment's
    file names of the team's objects that clash, which the output leaves to the job."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.files: set[tuple[str, str]] = set()  # (environment, file name)


def job_clashes(
    result: RunResult,
    objects: Sequence[TeamObject],
    involves: Callable[[str, str], bool] | None = None,
) -> Clashes:
    """`involves`: whether a clash of a team object's file and a job file is wanted."""
    clashes = Clashes()
    if not objects:
        return clashes
    # The first of two that are one file (kgen.resources.load keeps it).
    team = {
        env.name: {
            file_key(file_name(o)): o
            for o in reversed(objects)
            if o.file.env in (None, env.name)
        }
        for env in result.environments
    }
    # (object, job file, file name) -> its environments; the first job to render it.
    found: dict[tuple[int, str, str], list[str]] = {}
    for render in result.renders:
        env = render.env.name
        ours = team.get(env)
        if not ours:
            continue
        for filename in render.facts.names:
            obj = ours.get(file_key(filename))
            if obj is None or (env, file_name(obj)) in clashes.files:
                continue
            if involves is not None and not involves(obj.file.display, render.job.file):
                continue
            clashes.files.add((env, file_name(obj)))
            where = (id(obj), render.job.file, filename)
            found.setdefault(where, []).append(env)
    by_id = {id(o): o for o in objects}
    order = {env.name: i for i, env in enumerate(result.environments)}
    for (ident, job_file, filename), envs in found.items():
        problem = team_conflict(by_id[ident], filename, job_file)
        shown = ", ".join(sorted(envs, key=order.__getitem__))
        clashes.problems.append(replace(problem, context=f"environments {shown}"))
    return clashes


def team_conflict(obj: TeamObject, filename: str, job_file: str) -> Problem:
    """A team object that is also one a job renders."""
    return located(
        Problem(
            f"{obj.kind} '{obj.name}' is also rendered from {job_file} ({filename})",
            "duplicate-object",
            path=("metadata", "name"),
            hint="rename it, or leave the object to the job that renders it",
        ),
        obj.file.doc,
    )


def named_objects(root: Path, environments: list[str]) -> list[TeamObject]:
    """The team's objects by their kind and name only, unchecked (each file's problems
    are not reported: `kgen validate jobs/x.yaml` leaves them out of scope), for the
    clashes of the jobs it checks: 0.3% of that run, where checking them is 5%."""
    objects = []
    for team in read_resources(root, environments)[0]:
        data = team.doc.data
        kind = data.get("kind") if isinstance(data, dict) else None
        meta = data.get("metadata") if isinstance(data, dict) else None
        name = meta.get("name") if isinstance(meta, dict) else None
        # What check_object would refuse before it looks at the kind's fields.
        if not isinstance(kind, str) or not isinstance(data.get("apiVersion"), str):
            continue
        if not isinstance(name, str) or dns_subdomain_problem(name) is not None:
            continue
        if (kind, data["apiVersion"]) != ("Secret", "v1"):
            objects.append(TeamObject(team, kind, name, data, namespaced=False))
    return objects
