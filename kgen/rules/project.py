"""Rules that look across jobs and environments: claims, and overlays that do nothing."""

from __future__ import annotations

from collections.abc import Iterator

from kgen.errors import Problem
from kgen.load.jobs import located
from kgen.load.project import Project
from kgen.merge.select import selector_matches
from kgen.pipeline.facts import Claim
from kgen.pipeline.locate import locate
from kgen.pipeline.records import Finding, Render, RunResult
from kgen.rules.quota import check_quotas


def check_project(project: Project, result: RunResult) -> list[Finding]:
    return [
        *check_quotas(project, result),
        *_overlays_match(project),
        *_claims_declared(project, result),
        *_claims_agree(result),
        *_team_objects(project, result),
    ]


def _team_objects(project: Project, result: RunResult) -> list[Finding]:
    if not project.resources:
        return []
    # Imported here: only a project with objects in resources/ needs it.
    from kgen.resources.policy import policy_problems

    found = policy_problems(project.resources, result.environments)
    return [Finding(p, None, "") for p in found]


def _overlays_match(project: Project) -> Iterator[Finding]:
    # A job that failed to load may be the one an overlay matches: its own error says
    # what is wrong, and a warning here would point away from it. The other rules
    # across jobs stand: a duplicate name, a claim conflict or a quota exceeded by the
    # jobs that loaded are true whatever a job that did not load holds.
    if project.jobs_incomplete:
        return
    for overlay in project.overlays.values():
        if overlay.spec.match is None:
            continue
        if not any(
            selector_matches(overlay.spec.match, job.selected) for job in project.jobs
        ):
            problem = Problem(
                f"overlay '{overlay.name}' matches no job, so it changes nothing",
                "overlay-matches-nothing",
                path=("match",),
                at_key=True,
                hint="check the names, labels and frameworks under match",
            )
            yield Finding(located(problem, overlay.doc), None, "")


def _claims_declared(project: Project, result: RunResult) -> Iterator[Finding]:
    # A job that failed to load or validate may be the one creating the claim: its own
    # error says what is wrong, a claim-undeclared here would be false.
    if project.jobs_incomplete:
        return
    created: dict[str, set[str]] = {}
    used: list[tuple[Render, list[Claim]]] = []  # a render's claims it does not create
    for render in result.renders:  # 4,000 at 1,000 jobs, most without an outside claim
        names = created.setdefault(render.env.name, set())
        outside = []
        for claim in render.facts.claims:
            if claim.created:
                names.add(claim.name)
            else:
                outside.append(claim)
        if outside:
            used.append((render, outside))
    external = set(project.spec.external_claims)
    known_in = {env: names | external for env, names in created.items()}
    for render, claims in used:
        if render.env.name in result.failed_envs:
            continue
        known = known_in.get(render.env.name, external)
        problems = [
            Problem(
                f"claim '{claim.name}' is neither created by a job here nor declared external",
                "claim-undeclared",
                path=("volumes", claim.volume, "claim"),
                hint=f"add `create: {{size: ...}}` to this volume, or list {claim.name} in kgen.yaml externalClaims",
            )
            for claim in claims
            if claim.name not in known
        ]
        if problems:
            yield from _findings(render, problems)


def _claims_agree(result: RunResult) -> Iterator[Finding]:
    # Claims are immutable but for their size: one claim (same name and namespace) must
    # have the same access modes and class in every environment that creates it.
    first: dict[tuple[str | None, str], tuple[Render, tuple[object, ...]]] = {}
    for render in result.renders:
        for claim in render.facts.claims:
            if not claim.created:
                continue
            shape = (claim.access_modes, claim.storage_class)
            key = (render.env.namespace, claim.name)
            earlier = first.setdefault(key, (render, shape))
            if earlier[1] != shape:
                problem = Problem(
                    f"claim '{claim.name}' has other access modes or class here than in environment {earlier[0].env.name}",
                    "claim-conflict",
                    path=("volumes", claim.volume, "create"),
                    at_key=True,
                    hint="accessModes and storageClass cannot change once the claim exists; use another claim name",
                )
                yield from _findings(render, [problem])


def _findings(render: Render, problems: list[Problem]) -> Iterator[Finding]:
    problems = [p for p in problems if p.code not in render.facts.ignore]
    for problem in locate(render.job, render.layers, problems):
        yield Finding(problem, render.job.file, render.env.name)
