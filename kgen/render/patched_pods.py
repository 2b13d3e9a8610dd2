"""The kind's rules over the job's pod templates as the patches left them.

The rules over the spec read its `containers:` and `initContainers:`; a container a
patch adds, or a variable a patch gives one, they never see. So once the patches have
applied, each pod template of the job's object is read again: against the env contract
of the environment's release (operator-env, kgen.render.operator_env: the operator
overrides a variable it sets in the containers it fills) and against the kind's own
rules over a pod (`Kind.pod_rules`: PyTorch's `init-pytorch`). Only what a patch wrote
is reported, at the patch's line and under the rule's own code (so `lint.ignore`
silences it the same way); what the spec set is the spec rules' to report.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kgen.errors import DataPath, Problem
from kgen.kinds import kind_for
from kgen.kinds.base import Kind
from kgen.render.base import Environment, Manifest
from kgen.render.operator_env import (
    ByRole,
    First,
    contract,
    may_collide,
    problem,
    receives,
)
from kgen.spec.job import JobSpec

if TYPE_CHECKING:
    from kgen.patch.marks import PatchMarks


def patched_pod_problems(
    job: Manifest, spec: JobSpec, env: Environment
) -> list[Problem]:
    """The kind's pod rules and operator-env over what the patches wrote in `job`'s
    pod templates (the job's own object, patched)."""
    marks = job.patched
    kind = kind_for(spec.framework, env.target)
    if marks is None or env.target.name not in kind.targets:
        return []
    found: list[tuple[DataPath, Problem]] = []
    templates = list(_pod_templates(kind, job.body))
    rules = kind.pod_rules()
    for role, base, pod in templates:
        for path, rule_problem in (p for rule in rules for p in rule(spec, role, pod)):
            found.append(((*base, *path), rule_problem))
    if kind.appends_env and any(
        may_collide(name) for _, _, pod in templates for _, name in _env_names(pod)
    ):
        by_role, where = contract(kind, spec, env)
        for role, base, pod in templates:
            found += _env_collisions(role, base, pod, by_role, where, env)
    return [
        located
        for path, found_problem in found
        if (located := _at_patch(found_problem, path, job, marks)) is not None
    ]


def first_containers(kind: Kind, job: Manifest) -> First | None:
    """What the patches left first in each pod template of `job` (the job's own object),
    for operator-env over the spec (kgen.render.operator_env); None when no patch
    wrote in it."""
    marks = job.patched
    if marks is None:
        return None
    first: First = {}
    for role, base, pod in _pod_templates(kind, job.body):
        containers = pod.get("containers")
        head = containers[0] if isinstance(containers, list) and containers else None
        name = head.get("name") if isinstance(head, dict) else None
        # A patch wrote the place itself (add, move, copy or remove at index 0, or the
        # list or a map above it whole): the container there is the patch's.
        place = (*base, "containers", 0)
        placed = any(
            place[:cut] in marks.marks for cut in range(1, len(place) + 1)
        ) or any(path == place for path, _ in marks.removed)
        written = frozenset(
            var
            for path, var in _env_names(pod)
            if path[1] == 0 and marks.origin((*base, *path, "name")) is not None
        )
        first[role] = (name if isinstance(name, str) else None, placed, written)
    return first


def _pod_templates(
    kind: Kind, body: dict[str, Any]
) -> Iterator[tuple[str, DataPath, dict[str, Any]]]:
    """Each replica's pod spec, with its role (a `roles:` key) and its path."""
    replicas = (body.get("spec") or {}).get(kind.replica_key)
    for key, replica in replicas.items() if isinstance(replicas, dict) else ():
        role = kind.role_for_key(key)
        template = replica.get("template") if isinstance(replica, dict) else None
        pod = template.get("spec") if isinstance(template, dict) else None
        if role is not None and isinstance(pod, dict):
            yield role.name, ("spec", kind.replica_key, key, "template", "spec"), pod


def _env_names(pod: dict[str, Any]) -> Iterator[tuple[DataPath, str]]:
    """Each variable of the pod's containers, by its path in the pod spec."""
    containers = pod.get("containers")
    for index, container in enumerate(containers or ()):
        variables = container.get("env") if isinstance(container, dict) else None
        for at, var in enumerate(variables if isinstance(variables, list) else ()):
            if isinstance(var, dict) and isinstance(var.get("name"), str):
                yield ("containers", index, "env", at), var["name"]


def _env_collisions(
    role: str,
    base: DataPath,
    pod: dict[str, Any],
    by_role: ByRole,
    where: dict[str, str],
    env: Environment,
) -> Iterator[tuple[DataPath, Problem]]:
    if role not in by_role:
        return
    containers = pod["containers"]
    for path, name in _env_names(pod):
        index, at = path[1], path[3]
        assert isinstance(index, int) and isinstance(at, int)
        if not receives(where.get(role, ""), index, containers[index]):
            continue
        pair = (name, containers[index]["env"][at].get("value"))
        for found in problem(pair, path, [role], by_role, env):
            yield (*base, *path, "name"), found


def _at_patch(
    found: Problem, path: DataPath, job: Manifest, marks: PatchMarks
) -> Problem | None:
    """`found` at the line of the patch that wrote `path`; None when no patch did."""
    origin = marks.origin(path)
    if origin is None:
        return None
    return replace(
        found,
        message=f"the rendered {job.kind} '{job.name}', as a patch left it: {found.message}",
        path=(),
        at_key=False,
        file=origin.file,
        line=origin.line,
        column=origin.column,
    )
