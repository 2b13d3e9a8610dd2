"""One run: for every environment and job, merge → validate → check → render; then the
rules that span jobs and environments.

Problems from every stage are located at file:line:col through provenance, given their
catalogue severity, filtered by `lint.ignore`, de-duplicated across environments and
sorted; nothing is written here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kgen.errors import Problem
from kgen.kinds import KINDS
from kgen.kinds.targets import DEFAULT_TARGET, TARGETS
from kgen.load.jobs import JobSource
from kgen.load.project import Overlay, Project
from kgen.merge.select import selector_matches
from kgen.output.emitter import pyyaml
from kgen.pipeline.cache import digest
from kgen.pipeline.facts import Facts, facts_of, file_header
from kgen.pipeline.locate import merge_environments
from kgen.pipeline.parallel import map_units
from kgen.pipeline.records import Finding, Render, RenderedJob, RunResult
from kgen.pipeline.stage import Stages, layers_of
from kgen.render.base import Environment
from kgen.rules.catalog import classified
from kgen.rules.context import RuleContext
from kgen.rules.forbidden import enforced, forbidden_rules
from kgen.rules.project import check_project


def environment_for(project: Project, name: str) -> tuple[Environment, list[Overlay]]:
    """The environment `name` and its overlays, in order; the last `target` wins."""
    settings = project.spec.environments[name]
    overlays = [project.overlays[o] for o in settings.overlays if o in project.overlays]
    target = DEFAULT_TARGET
    for overlay in overlays:
        target = overlay.spec.target or target
    env = Environment(
        name,
        TARGETS[target],
        settings.namespace,
        project.spec.job_names,
        flux=project.spec.flux is not None,
        forbidden=forbidden_rules(project, name),
    )
    return env, overlays


@dataclass(frozen=True)
class _Work:
    """Everything a render needs, set before worker processes fork so they inherit it."""

    project: Project
    environments: list[tuple[Environment, list[Overlay]]]
    context: RuleContext
    keep: bool
    emit: bool
    texts: bool
    stages: Stages


_work: _Work | None = None


def run(
    project: Project,
    *,
    envs: Iterable[str] | None = None,
    jobs: Iterable[str] | None = None,
    select: Callable[[str, str], bool] | None = None,
    keep: bool = False,
    emit: bool = False,
    texts: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> RunResult:
    """Render `jobs` (names) in `envs`, or the (environment, job file) pairs `select` picks.
    `progress` hears (done, total) of the renders the cache did not have.

    `emit` makes each render's YAML text (with `texts` False, a render the cache has
    comes with its files' digests instead: enough for `build --check`, kgen.output.digests);
    `keep` keeps the full renders (specs and object
    trees) in `rendered`. Without `keep`, renders run in worker processes on every core;
    results come back in order, so the outcome is the same on one core or many.
    """
    result = RunResult()
    wanted = set(jobs) if jobs is not None else None
    context = RuleContext(
        gpu_placement=project.spec.gpu_placement,
        kubernetes_version=project.spec.kubernetes_version,
        job_names=project.spec.job_names,
        crds=project.crds,
        allowed_literals=frozenset(project.spec.lint.allow_literals),
    )
    names = list(envs) if envs is not None else list(project.spec.environments)
    environments = [environment_for(project, name) for name in names]
    units: list[tuple[int, int]] = []
    env_count: dict[str, int] = {}  # per job: how many environments render it
    for env_index, (env, _overlays) in enumerate(environments):
        selector = project.spec.environments[env.name].jobs
        result.environments.append(env)
        for job_index, job in enumerate(project.jobs):
            # Cheapest test first: a one-file validate picks 4 of 4,000 pairs.
            if select is not None and not select(env.name, job.file):
                continue
            if (wanted is not None and job.name not in wanted) or not selector_matches(
                selector, job.selected
            ):
                continue
            env_count[job.file] = env_count.get(job.file, 0) + 1
            units.append((env_index, job_index))
    # A run over a few chosen files (select) renders too little for the cache to pay.
    use_cache = not keep and select is None
    work = _Work(project, environments, context, keep, emit, texts, Stages(context))
    outcomes = _outcomes(project, work, units, use_cache, progress)
    # Job identities parsed this run are kept whatever the run; renders only by runs
    # that used the cache.
    project.cache.save(whole=envs is None and jobs is None and select is None)
    findings: list[Finding] = []
    for (env_index, job_index), (facts, rendered, problems) in zip(
        units, outcomes, strict=True
    ):
        env, overlays = environments[env_index]
        job = project.jobs[job_index]
        if facts is not None:
            applied = applied_overlays(job, overlays)
            result.renders.append(
                Render(
                    env, job, tuple(o.name for o in applied), layers_of(applied), facts
                )
            )
        else:
            result.failed_envs.add(env.name)
        if rendered is not None:
            result.rendered.append(rendered)
        findings += [Finding(p, job.file, env.name) for p in problems]
    findings += check_project(project, result)
    ignored = project.spec.lint.ignore
    result.problems = merge_environments(
        [f for f in findings if f.problem.code not in ignored], env_count
    )
    return result


_Outcome = tuple[Facts | None, RenderedJob | None, list[Problem]]


def _outcomes(
    project: Project,
    work: _Work,
    units: list[tuple[int, int]],
    use_cache: bool,
    progress: Callable[[int, int], None] | None = None,
) -> list[_Outcome]:
    """Each unit's outcome, in order: from the cache where an earlier run left it, else
    rendered (on every core unless full renders are kept)."""
    global _work
    cache = project.cache if use_cache else None
    keys = [
        render_key(project, work.environments[e][0].name, project.jobs[j])
        for e, j in units
    ]
    outcomes: list[_Outcome | None] = [None] * len(units)
    for index, key in enumerate(keys):
        entry = (
            cache.render(key, emitted=work.emit, texts=work.texts) if cache else None
        )
        if entry is not None:
            outcomes[index] = (entry[0], None, entry[1])
    missing = [i for i, found in enumerate(outcomes) if found is None]
    _work = work
    if missing:
        # Imported once here, not in every worker.
        used = {project.jobs[units[i][1]].framework for i in missing}
        _prepare_rendering(emit=work.emit, frameworks=used)
    try:
        fresh = map_units(
            _render_unit,
            [units[i] for i in missing],
            parallel=not work.keep,
            progress=progress,
        )
    finally:
        _work = None
    for index, outcome in zip(missing, fresh, strict=True):
        outcomes[index] = outcome
        if cache:
            cache.remember_render(keys[index], (outcome[0], outcome[2]))
    return [outcome for outcome in outcomes if outcome is not None]


def render_key(project: Project, env: str, job: JobSource) -> str:
    """The cache's key of `job`'s render in environment `env` (kgen.pipeline.cache)."""
    return digest(project.inputs, env, job.key)


def _prepare_rendering(*, emit: bool, frameworks: set[str]) -> None:
    import kgen.check.output
    import kgen.render.job
    import kgen.rules.spec  # noqa: F401

    # Only the kinds this run renders: each kind's models cost start-up time
    # (10-25 ms a kind), which a project that never uses a kind should not pay.
    for framework, kind in KINDS.items():
        if framework in frameworks:
            kind.preload()
    if emit:
        pyyaml()


def _render_unit(unit: tuple[int, int]) -> _Outcome:
    assert _work is not None
    env, overlays = _work.environments[unit[0]]
    job = _work.project.jobs[unit[1]]
    rendered, problems = render_one(job, env, overlays, _work.stages)
    if rendered is None:
        return None, None, problems
    header = file_header(job.file, env.name, rendered.overlays)
    facts = facts_of(
        rendered.spec, env, rendered.manifests, emit=_work.emit, header=header
    )
    return facts, rendered if _work.keep else None, problems


def applied_overlays(job: JobSource, overlays: list[Overlay]) -> list[Overlay]:
    return [o for o in overlays if selector_matches(o.spec.match, job.selected)]


def render_one(
    job: JobSource, env: Environment, overlays: list[Overlay], stages: Stages
) -> tuple[RenderedJob | None, list[Problem]]:
    applied = applied_overlays(job, overlays)
    stage = stages.of(job, applied)
    spec = stage.spec
    if spec is None:
        return None, list(stage.located)
    # Imported here: a run whose renders all come from the cache needs none of these
    # (the job models are a fifth of start-up). Forked workers inherit them.
    from kgen.check.output import check_output
    from kgen.patch.sources import patcher
    from kgen.render.job import render_job

    patch = patcher(job, spec, stage.layers, applied, stages.context)
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
        )
    if patch is not None:
        render_problems += patch.rules(manifests)
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
