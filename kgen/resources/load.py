"""The team's objects of a project: read, checked, and no two of one environment with
the same kind and name (they would be one output file)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgen.errors import Problem
from kgen.load.jobs import located
from kgen.resources.check import TeamObject, check_object
from kgen.resources.read import read_resources
from kgen.resources.secrets import secret_problems

if TYPE_CHECKING:
    from kgen.load.project import Project


def load_resources(project: Project) -> tuple[list[TeamObject], list[Problem]]:
    environments = list(project.spec.environments)
    version = project.spec.kubernetes_version
    allowed = frozenset(project.spec.lint.allow_literals)
    files, problems = read_resources(project.root, environments)
    objects: list[TeamObject] = []
    seen: dict[tuple[str | None, str, str], str] = {}
    for team in files:
        obj, found = check_object(team, version, project.crds)
        problems += found
        if obj is None:
            continue
        problems += secret_problems(
            obj, version=version, crds=project.crds, allowed=allowed
        )
        envs = [None, *environments] if team.env is None else [team.env, None]
        earlier = next(
            (
                seen[(e, obj.kind, obj.name)]
                for e in envs
                if (e, obj.kind, obj.name) in seen
            ),
            None,
        )
        if earlier is not None:
            problems.append(_duplicate(obj, earlier))
            continue
        seen[(team.env, obj.kind, obj.name)] = team.display
        objects.append(obj)
    return objects, problems


def _duplicate(obj: TeamObject, earlier: str) -> Problem:
    return located(
        Problem(
            f"{obj.kind} '{obj.name}' is also defined in {earlier}",
            "duplicate-object",
            path=("metadata", "name"),
            hint="define each object once: in resources/ for every environment, or in resources/<env>/",
        ),
        obj.file.doc,
    )
