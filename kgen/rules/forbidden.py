"""Rules an environment's policy forbids (kgen.yaml `policy:`, kgen.spec.env_policy).

A forbidden rule is an error in that environment even where a job or an overlay
silences it with `lint.ignore`: the one who writes the job cannot allow what the owner
of kgen.yaml forbids, which is what a platform team needs when kgen lints other teams'
pull requests. The problem keeps its place (the pod field), says which rule, which
environment and where the policy is set, and the `lint.ignore` that tried to allow it
is refused at its own line. Elsewhere the rule keeps its severity and suppressions.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from kgen.errors import DataPath, Problem
from kgen.rules.groups import RULE_GROUPS
from kgen.rules.info import RuleInfo, rule

if TYPE_CHECKING:
    from kgen.load.project import Project
    from kgen.pipeline.stage import Stage
    from kgen.render.base import Environment

POLICY_FORBIDDEN = "policy-forbidden"
IGNORE_REFUSED = "policy-ignore-refused"

POLICY_CODES: list[RuleInfo] = [
    rule(
        POLICY_FORBIDDEN,
        "error",
        False,
        "A rule the environment's policy forbids",
        "kgen.yaml `policy:` (every environment's) or an environment's own `policy:` names rules that are errors there: a Pod Security Standard level (`podSecurity: baseline` forbids host-path, host-pid, host-ipc, host-network, privileged-container, host-port and added-capabilities) and any rule under `forbid`. The message names the rule, the environment and the line of kgen.yaml that forbids it; no `lint.ignore` of a job or overlay silences it. The pods of the team's objects in `resources/` are held to the same rules, and their `lint-ignore.kgen.io/<rule>` annotations do not silence them either.",
    ),
    rule(
        IGNORE_REFUSED,
        "error",
        False,
        "A `lint.ignore` of a rule the environment's policy forbids",
        "The ignore is reported at its own line in the environments whose policy forbids the rule, and keeps working in the others. Move it to an overlay only the environments that allow the rule apply (a dev overlay), or have kgen.yaml's policy `allow` the rule, with a reason. An object in `resources/` that allows the rule with a `lint-ignore.kgen.io/<rule>` annotation belongs in `resources/<env>/` of the environments that allow it.",
    ),
]


def forbidden_rules(project: Project, env: str) -> tuple[tuple[str, str], ...]:
    """The rules `env`'s policy forbids, each with the words saying where it is set:
    the environment's own policy, else the project's."""
    own = project.spec.environments[env].policy
    policy = own if own is not None else project.spec.policy
    if policy is None:
        return ()
    base: DataPath = ("environments", env, "policy") if own else ("policy",)
    found = []
    for code, path in policy.forbidden().items():
        origin = project.doc.positions.get((*base, *path))
        place = f"{project.doc.file}:{origin.line}:{origin.column}" if origin else ""
        words = f"in {env} by its policy" if own else "by the project's policy"
        found.append((code, f"{words} ({place})" if place else words))
    return tuple(found)


def enforced(
    env: Environment, stage: Stage, located: list[Problem], silenced: list[Problem]
) -> list[Problem]:
    """`located` (one job's problems in `env`) with the rules `env` forbids made errors
    there, those that `lint.ignore` silenced (`silenced`) included, and each ignore
    that tried refused at its line."""
    forbidden = dict(env.forbidden)
    out = [
        forbidden_problem(p, forbidden[p.code]) if p.code in forbidden else p
        for p in located
    ]
    caught = [p for p in silenced if p.code in forbidden]
    if not caught:
        return out
    # A patch's problems come located at its line (kgen.patch); the rest at the spec's.
    placed = [p for p in caught if p.file is not None]
    placed += stage.locate([p for p in caught if p.file is None])
    out += [forbidden_problem(p, forbidden[p.code]) for p in placed]
    refused = [
        _refused(stage, code, forbidden[code])
        for code in dict.fromkeys(p.code for p in caught)
    ]
    return out + stage.locate(refused)


_JOB_HINT = (
    "no lint.ignore allows it there; leave it out of this environment"
    " (an overlay may set it to null), or allow it in kgen.yaml's policy"
)


def forbidden_problem(problem: Problem, where: str, hint: str = _JOB_HINT) -> Problem:
    """`problem` as the error of a rule forbidden `where` (kgen.resources.policy too)."""
    return replace(
        problem,
        code=POLICY_FORBIDDEN,
        severity="error",
        message=f"{problem.code} is forbidden {where}: {problem.message}",
        hint=hint,
    )


def _refused(stage: Stage, code: str, where: str) -> Problem:
    # The key as written: the rule's own, or the group it belongs to (host-namespaces).
    keys = [code, *(g for g, members in RULE_GROUPS.items() if code in members)]
    written = next((k for k in keys if stage.origin(("lint", "ignore", k))), code)
    return Problem(
        f"{code} is forbidden {where}; lint.ignore cannot allow it there",
        IGNORE_REFUSED,
        path=("lint", "ignore", written),
        at_key=True,
        hint="ignore it in an overlay only the environments that allow it apply",
    )
