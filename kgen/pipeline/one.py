"""One job rendered in one environment: its stage (merged, validated, ruled: shared by
the environments that apply the same overlays), its objects, their check, its patches'
rules, its problems located and filtered.
"""

from __future__ import annotations

from kgen.errors import Problem
from kgen.load.jobs import JobSource
from kgen.load.project import Overlay
from kgen.merge.select import selector_matches
from kgen.pipeline.records import RenderedJob
from kgen.pipeline.stage import Stages
from kgen.render.base import Environment
from kgen.rules.catalog import classified
from kgen.rules.forbidden import enforced


def applied_overlays(job: JobSource, overlays: list[Overlay]) -> list[Overlay]:
    return [o for o in overlays if selector_matches(o.spec.match, job.selected)]


def render_one(
    job: JobSource, env: Environment, overlays: list[Overlay], stages: Stages
) -> tuple[RenderedJob | None, list[Problem]]:
    applied = applied_overlays(job, overlays)
    stage = stages.of(job, applied, env.target.name)
    spec = stage.spec
    if spec is None:
        return None, list(stage.located)
    # Imported here: a run whose renders all come from the cache needs none of these
    # (the job models are a fifth of start-up). Forked workers inherit them.
    from kgen.check.output import check_output
    from kgen.patch.sources import patcher
    from kgen.render.job import render_job

    patch = patcher(
        job,
        spec,
        stage.layers,
        applied,
        stages.context,
        target=env.target.name,
        spec_failed=stage.failed,
    )
    manifests, render_problems = render_job(spec, env, patch=patch)
    # The output check is the safety net for a spec that passed every check before it;
    # after a spec error it would only say the same thing again.
    if not stage.failed and not any(
        classified(p).severity == "error" for p in render_problems
    ):
        render_problems += check_output(
            manifests,
            target=env.target.name,
            version=stages.context.kubernetes_version,
            crds=stages.context.crds,
            spec=spec,
        )
    if patch is not None:
        render_problems += patch.rules(
            manifests, spec, env, version=stages.context.kubernetes_version
        )
    ignored = spec.lint.ignore
    kept = [p for p in render_problems if p.code not in ignored]
    # A patch's problems come located at its line (kgen.patch).
    located = stage.located + stage.locate([p for p in kept if p.file is None])
    located += [classified(p) for p in kept if p.file is not None]
    if env.forbidden:
        silenced = stage.silenced + [p for p in render_problems if p.code in ignored]
        located = enforced(env, stage, located, silenced)
    if any(p.severity == "error" for p in located):
        return None, located
    return RenderedJob(
        env, job, tuple(o.name for o in applied), manifests, spec, stage.layers
    ), located
