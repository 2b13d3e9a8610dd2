"""Rules that look across jobs and environments: claims, and overlays that do nothing."""

from __future__ import annotations

from collections.abc import Iterator

from kgen.discover import Project, located
from kgen.errors import Problem
from kgen.merge import selector_matches
from kgen.pipeline import Finding, RenderedJob, RunResult, locate


def check_project(project: Project, result: RunResult) -> list[Finding]:
    from kgen.plan import check_quotas

    return [
        *check_quotas(project, result),
        *_overlays_match(project),
        *_claims_declared(project, result),
        *_claims_agree(result),
    ]


def _overlays_match(project: Project) -> Iterator[Finding]:
    for overlay in project.overlays.values():
        if overlay.spec.match is None:
            continue
        if not any(
            selector_matches(overlay.spec.match, job.doc.data) for job in project.jobs
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
    created: dict[str, set[str]] = {}
    for rendered in result.rendered:
        created.setdefault(rendered.env.name, set()).update(
            v.claim for v in rendered.spec.volumes if v.create is not None and v.claim
        )
    external = set(project.spec.external_claims)
    for rendered in result.rendered:
        known = created.get(rendered.env.name, set()) | external
        problems = [
            Problem(
                f"claim '{volume.claim}' is neither created by a job here nor declared external",
                "claim-undeclared",
                path=("volumes", index, "claim"),
                hint=f"add `create: {{size: ...}}` to this volume, or list {volume.claim} in kgen.yaml externalClaims",
            )
            for index, volume in enumerate(rendered.spec.volumes)
            if volume.claim and volume.create is None and volume.claim not in known
        ]
        yield from _findings(rendered, problems)


def _claims_agree(result: RunResult) -> Iterator[Finding]:
    # Claims are immutable but for their size: one claim (same name and namespace) must
    # have the same access modes and class in every environment that creates it.
    first: dict[tuple[str | None, str], tuple[RenderedJob, tuple[object, ...]]] = {}
    for rendered in result.rendered:
        for index, volume in enumerate(rendered.spec.volumes):
            if volume.create is None or volume.claim is None:
                continue
            shape = (tuple(volume.create.access_modes), volume.create.storage_class)
            key = (rendered.env.namespace, volume.claim)
            earlier = first.setdefault(key, (rendered, shape))
            if earlier[1] != shape:
                problem = Problem(
                    f"claim '{volume.claim}' has other access modes or class here than in environment {earlier[0].env.name}",
                    "claim-conflict",
                    path=("volumes", index, "create"),
                    at_key=True,
                    hint="accessModes and storageClass cannot change once the claim exists; use another claim name",
                )
                yield from _findings(rendered, [problem])


def _findings(rendered: RenderedJob, problems: list[Problem]) -> Iterator[Finding]:
    problems = [p for p in problems if p.code not in rendered.spec.lint.ignore]
    for problem in locate(rendered.job, rendered.layers, problems):
        yield Finding(problem, rendered.job.file, rendered.env.name)
