"""The pod-security rules over the team's objects (resources/), per environment, as over
jobs: a rule the environment's policy forbids is an error there (kgen.rules.forbidden),
elsewhere the rule keeps its catalogue severity.

Pods are found by their shape, whatever the kind: every mapping with a `containers`
list is a pod spec (a Pod's `spec`, the template of a Deployment, StatefulSet,
DaemonSet, ReplicaSet, Job or ReplicationController, a CronJob's job template, a
PyTorchJob's replica specs, a custom resource's pod templates). A custom resource that
describes its pods in its own fields, without a `containers` list, is not checked.

An object allows a rule with an annotation `lint-ignore.kgen.io/<rule>: <reason>`, as
a job does with `lint.ignore`; where the policy forbids the rule, the annotation is
refused at its line, as a job's ignore is.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from itertools import islice
from typing import TYPE_CHECKING, Any

from kgen.errors import DataPath, Problem, shortened
from kgen.load.jobs import located
from kgen.resources.check import TeamObject
from kgen.rules.forbidden import IGNORE_REFUSED, forbidden_problem
from kgen.rules.groups import RULE_GROUPS
from kgen.rules.pod_security import Words, pod_spec_problems
from kgen.spec.env_policy import POD_SECURITY_LEVELS
from kgen.spec.validate import MAX_PROBLEMS

if TYPE_CHECKING:
    from kgen.render.base import Environment

IGNORE_PREFIX = "lint-ignore.kgen.io/"
# What an annotation may allow: the rules checked here, and the group that names three.
CHECKED = frozenset({*POD_SECURITY_LEVELS["baseline"], *RULE_GROUPS})
_FORBIDDEN_HINT = (
    "no annotation allows it there; keep the object out of this environment"
    " (resources/<env>/ holds one environment's objects), or allow it in"
    " kgen.yaml's policy"
)


def policy_problems(
    objects: Sequence[TeamObject], environments: Sequence[Environment]
) -> list[Problem]:
    """Each object's pod-security problems in the environments it goes into, located
    in its file, one per place, naming the environments unless it is in all of them."""
    out: list[Problem] = []
    names = [env.name for env in environments]
    for obj in objects:
        ignores, invalid = _ignores(obj)
        out += invalid
        envs = [e for e in environments if obj.file.env in (None, e.name)]
        found = _bounded(obj) if envs else []
        if not found:
            continue
        merged: dict[tuple[str, str, DataPath], tuple[Problem, list[str]]] = {}
        for env in envs:
            for problem in _in_environment(found, ignores, dict(env.forbidden)):
                key = (problem.code, problem.message, problem.path)
                merged.setdefault(key, (problem, []))[1].append(env.name)
        for problem, where in merged.values():
            if where != names:
                label = "environment" if len(where) == 1 else "environments"
                problem = replace(problem, context=f"{label} {', '.join(where)}")
            out.append(located(problem, obj.file.doc))
    return out


def _bounded(obj: TeamObject) -> list[Problem]:
    """The object's first MAX_PROBLEMS findings, and a note of how many more: thousands
    are one mistake repeated, or a file made to flood the log."""
    findings = _pods_problems(obj)
    found = list(islice(findings, MAX_PROBLEMS))
    rest = sum(1 for _ in findings)
    if rest:
        found.append(
            Problem(
                f"{rest} more pod-security problems in this object are not listed",
                "too-many-problems",
                path=(),
                hint="fix the ones listed (often one mistake causes them all) and"
                " validate again",
            )
        )
    return found


def _in_environment(
    found: list[Problem],
    ignores: dict[str, str],
    forbidden: dict[str, str],
) -> Iterator[Problem]:
    for problem in found:
        if problem.code in forbidden:
            yield forbidden_problem(problem, forbidden[problem.code], _FORBIDDEN_HINT)
        elif problem.code not in ignores:
            yield problem
    for code in dict.fromkeys(p.code for p in found):
        if code in forbidden and code in ignores:
            key = f"{IGNORE_PREFIX}{ignores[code]}"
            yield Problem(
                f"{code} is forbidden {forbidden[code]}; the annotation {key} cannot"
                " allow it there",
                IGNORE_REFUSED,
                path=("metadata", "annotations", key),
                at_key=True,
                hint="put the object in resources/<env>/ of the environments that"
                " allow it",
            )


def _pods_problems(obj: TeamObject) -> Iterator[Problem]:
    words = Words(
        "its pods", lambda code: f"the annotation {IGNORE_PREFIX}{code} on the object"
    )
    named = f"{obj.kind} '{obj.name}': "
    for pod, path in _pod_specs(obj.body):
        for problem in pod_spec_problems(pod, path, words):
            yield replace(problem, message=named + problem.message)


def _pod_specs(body: dict[str, Any]) -> Iterator[tuple[dict[str, Any], DataPath]]:
    """Every mapping with a `containers` list, in the order written (depth first)."""
    stack: list[tuple[Any, DataPath]] = [
        (value, (key,)) for key, value in reversed(body.items()) if key != "metadata"
    ]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("containers"), list):
                yield node, path
            stack += [(v, (*path, k)) for k, v in reversed(node.items())]
        elif isinstance(node, list):
            stack += [(v, (*path, i)) for i, v in reversed(list(enumerate(node)))]


def _ignores(obj: TeamObject) -> tuple[dict[str, str], list[Problem]]:
    """{rule: the rule or group as written} of the object's ignore annotations, and
    those kgen cannot take, at their keys."""
    metadata = obj.body.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if not isinstance(annotations, dict):
        return {}, []
    ignores: dict[str, str] = {}
    invalid: list[Problem] = []
    for key, reason in annotations.items():
        if not isinstance(key, str) or not key.startswith(IGNORE_PREFIX):
            continue
        code = key[len(IGNORE_PREFIX) :]
        message = _refusal(code, reason)
        if message is not None:
            problem = Problem(
                message,
                "resource-invalid",
                path=("metadata", "annotations", key),
                at_key=True,
                hint="lint-ignore.kgen.io/<rule>: <why the object needs it>, for one of "
                + ", ".join(sorted(CHECKED)),
            )
            invalid.append(located(problem, obj.file.doc))
            continue
        for member in RULE_GROUPS.get(code, (code,)):
            ignores.setdefault(member, code)
    return ignores, invalid


def _refusal(code: str, reason: object) -> str | None:
    if code not in CHECKED:
        return (
            f"'{shortened(code, 64)}' is no rule kgen checks on the team's objects,"
            " so the annotation would allow nothing"
        )
    if not isinstance(reason, str) or not reason.strip():
        return f"the annotation allowing {code} needs the reason as its value"
    return None
