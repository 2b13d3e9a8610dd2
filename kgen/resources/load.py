"""The team's objects of a project: read, checked, and no two of one environment that
would be one output file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgen.errors import Problem
from kgen.load.jobs import located
from kgen.resources.check import TeamObject, check_object, file_key, file_name
from kgen.resources.controls import control_problems
from kgen.resources.metadata import lifecycle_problems, metadata_problems
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
    # By the output file each goes to: two objects whose kinds differ only in case
    # (a CRD's) would be one file, as would two names a file system takes for one.
    seen: dict[tuple[str | None, str], TeamObject] = {}
    for team in files:
        obj, found = check_object(team, version, project.crds)
        problems += found
        if obj is None:
            continue
        problems += secret_problems(
            obj, version=version, crds=project.crds, allowed=allowed
        )
        problems += control_problems(obj)
        # After the check, as the secret rules: the object still goes on to the
        # policy rules and the duplicate check with its own problems reported.
        found = lifecycle_problems(obj.body) + metadata_problems(obj.body)
        problems += [located(p, team.doc) for p in found]
        key = file_key(file_name(obj))
        envs = [None, *environments] if team.env is None else [team.env, None]
        earlier = next((seen[(e, key)] for e in envs if (e, key) in seen), None)
        if earlier is not None:
            problems.append(_duplicate(obj, earlier))
            continue
        seen[(team.env, key)] = obj
        objects.append(obj)
    return objects, problems


def _duplicate(obj: TeamObject, earlier: TeamObject) -> Problem:
    if (earlier.kind, earlier.name) == (obj.kind, obj.name):
        message = f"{obj.kind} '{obj.name}' is also defined in {earlier.file.display}"
        hint = "define each object once: in resources/ for every environment, or in resources/<env>/"
    else:
        message = (
            f"{obj.kind} '{obj.name}' would be the same output file as"
            f" {earlier.kind} '{earlier.name}' of {earlier.file.display}"
            f" ({file_name(earlier)})"
        )
        hint = (
            "kgen names an object's file <name>.<kind>.yaml, the kind lower-cased, and"
            " some file systems ignore case and Unicode normalisation: rename one of them"
        )
    return located(
        Problem(message, "duplicate-object", path=("metadata", "name"), hint=hint),
        obj.file.doc,
    )
