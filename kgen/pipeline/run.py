"""One run: for every environment and job, merge → validate → check → render; then the
rules that span jobs and environments.

Problems from every stage are located at file:line:col through provenance, given their
catalogue severity, filtered by `lint.ignore`, de-duplicated across environments and
sorted; nothing is written here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from kgen.errors import Problem
from kgen.kinds import KINDS
from kgen.load.jobs import JobSource
from kgen.load.project import Overlay, Project
from kgen.merge.layers import Layer
from kgen.merge.select import selector_matches
from kgen.output.emitter import pyyaml
from kgen.pipeline.code import digest_after, hashing
from kgen.pipeline.facts import Facts, facts_of, file_header, with_shared_names
from kgen.pipeline.locate import merge_environments
from kgen.pipeline.parallel import MIN_PARALLEL, imap_units
from kgen.pipeline.records import Finding, Render, RenderedJob, RunResult, TextSink
from kgen.pipeline.stage import Stages, layers_of
from kgen.pipeline.units import Unit, environment_for, units_of
from kgen.render.base import Environment
from kgen.rules.catalog import classified
from kgen.rules.context import RuleContext
from kgen.rules.forbidden import enforced
from kgen.rules.project import check_project


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
    sink: TextSink | None = None,
) -> RunResult:
    """Render `jobs` (names) in `envs`, or the (environment, job file) pairs `select` picks.
    `progress` hears (done, total) of the renders the cache did not have.

    `emit` makes each render's YAML text (with `texts` False, a render the cache has
    comes with its files' digests instead: enough for `build --check`, kgen.output.digests);
    `keep` keeps the full renders (specs and object
    trees) in `rendered`. Without `keep`, renders run in worker processes on every core,
    a job in every environment at once; results come back in order, so the outcome is
    the same on one core or many. `sink` takes each render's facts as it arrives, in
    order, and gives back those to keep (kgen.output.spool: its texts written, only
    their digests kept).
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
    result.environments = [env for env, _ in environments]
    units = units_of(project, environments, wanted=wanted, select=select)
    # A run over a few chosen files (select) renders too little for the cache to pay.
    use_cache = not keep and select is None
    work = _Work(project, environments, context, keep, emit, texts, Stages(context))
    # Each environment's renders in job order, environment by environment, whatever
    # order they arrive in: what the tree, the rules and reports read.
    by_env: list[list[tuple[int, _Outcome]]] = [[] for _ in environments]
    for env_index, job_index, (facts, rendered, problems) in _outcomes(
        project, work, units, use_cache, progress, sink
    ):
        by_env[env_index].append((job_index, (facts, rendered, problems)))
    # Job identities parsed this run are kept whatever the run; renders only by runs
    # that used the cache.
    project.cache.save(whole=envs is None and jobs is None and select is None)
    findings: list[Finding] = []
    env_count: dict[str, int] = {}  # per job: how many environments render it
    shared: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[Layer, ...]]] = {}
    for env_index, outcomes in enumerate(by_env):
        env, overlays = environments[env_index]
        for job_index, (facts, rendered, problems) in outcomes:
            job = project.jobs[job_index]
            env_count[job.file] = env_count.get(job.file, 0) + 1
            if facts is not None:
                applied = applied_overlays(job, overlays)
                named = tuple(o.name for o in applied)
                # One tuple of names and of layers for each list of overlays, shared
                # by its renders (40,000 at 10,000 jobs).
                if named not in shared:
                    shared[named] = named, layers_of(applied)
                result.renders.append(Render(env, job, *shared[named], facts))
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
    units: list[Unit],
    use_cache: bool,
    progress: Callable[[int, int], None] | None = None,
    sink: TextSink | None = None,
) -> Iterator[tuple[int, int, _Outcome]]:
    """(environment, job, outcome) of each job in each of its environments, job by
    job: from the cache where an earlier run left it, else rendered (on every core
    unless full renders are kept) and streamed back in order, each given to `sink`
    before the cache remembers it."""
    global _work
    cache = project.cache if use_cache else None
    found: list[list[tuple[int, str, _Outcome | None]]] = []
    missing: list[Unit] = []
    for job_index, env_indexes in units:
        job_key = _job_key(project, project.jobs[job_index])
        entries: list[tuple[int, str, _Outcome | None]] = []
        for env_index in env_indexes:
            key = f"{job_key}/{work.environments[env_index][0].name}"
            entry = (
                cache.render(key, emitted=work.emit, texts=work.texts)
                if cache
                else None
            )
            cached: _Outcome | None = None
            if entry is not None:
                cached = (entry[0], None, entry[1])
            entries.append((env_index, key, cached))
        found.append(entries)
        fresh = tuple(e for e, _key, outcome in entries if outcome is None)
        if fresh:
            missing.append((job_index, fresh))
    total = sum(len(envs) for _job, envs in missing)
    if missing:
        # Imported once here, not in every worker.
        used = {project.jobs[job].framework for job, _envs in missing}
        _prepare_rendering(emit=work.emit, frameworks=used, renders=total)
    _work = work
    try:
        rendered = imap_units(
            _render_unit, missing, parallel=not work.keep, pieces=total
        )
        done = 0
        for (job_index, _envs), entries in zip(units, found, strict=True):
            if any(outcome is None for _e, _k, outcome in entries):
                fresh_outcomes = iter(next(rendered))
                done += sum(outcome is None for _e, _k, outcome in entries)
                if progress is not None:
                    progress(done, total)
            for env_index, key, known in entries:
                outcome = next(fresh_outcomes) if known is None else known
                facts = outcome[0]
                if sink is not None and facts is not None:
                    env = work.environments[env_index][0].name
                    outcome = (sink(env, facts), *outcome[1:])
                if known is None and cache:
                    cache.remember_render(key, (outcome[0], outcome[2]))
                yield env_index, job_index, outcome
    finally:
        _work = None


def render_key(project: Project, env: str, job: JobSource) -> str:
    """The cache's key of `job`'s render in environment `env` (kgen.pipeline.cache):
    the digest of the job and every input, then the environment's name. A job's
    renders share their first bits, and so their file in the cache, where they
    share their names too (a third less to unpickle than one file a render)."""
    return f"{_job_key(project, job)}/{env}"


def _job_key(project: Project, job: JobSource) -> str:
    # The inputs' hash is made once (1,000 job keys a build of 1,000 jobs).
    return digest_after(hashing(project.inputs).copy(), job.key)


def _prepare_rendering(*, emit: bool, frameworks: set[str], renders: int) -> None:
    import kgen.check.output
    import kgen.render.job
    import kgen.rules.spec  # noqa: F401

    # Only the kinds this run renders: each kind's models cost start-up time
    # (10-25 ms a kind), which a project that never uses a kind should not pay.
    for framework, kind in KINDS.items():
        if framework in frameworks:
            kind.preload()
    # PyYAML writes only what kgen's own emitter leaves it (multi-line strings,
    # floats): imported here for workers to inherit, else when a render needs it
    # (10 ms of the rebuild after a one-spec edit).
    if emit and renders >= MIN_PARALLEL:
        pyyaml()


def _render_unit(unit: Unit) -> list[_Outcome]:
    """A job rendered in each of its environments, in their order: the job's stages
    (merge, validation, rules) are shared by the environments that apply the same
    overlays, in this worker."""
    assert _work is not None
    job = _work.project.jobs[unit[0]]
    if not _work.keep:  # full renders keep the project's own job
        job = job.own()
    outcomes = [_render_in(job, *_work.environments[env]) for env in unit[1]]
    shared = with_shared_names([facts for facts, _, _ in outcomes])
    return [(f, *outcome[1:]) for f, outcome in zip(shared, outcomes, strict=True)]


def _render_in(job: JobSource, env: Environment, overlays: list[Overlay]) -> _Outcome:
    assert _work is not None
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
