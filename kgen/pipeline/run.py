"""One run: for every environment and job, merge → validate → check → render; then the
rules that span jobs and environments.

Problems from every stage are located at file:line:col through provenance, given their
catalogue severity, filtered by `lint.ignore`, de-duplicated across environments and
sorted; nothing is written here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

from kgen.check import ahead
from kgen.errors import Problem
from kgen.load.jobs import JobSource
from kgen.load.project import Overlay, Project
from kgen.pipeline.cache import Identity
from kgen.pipeline.facts import facts_of, file_header, with_shared_names
from kgen.pipeline.gather import Gathered, Outcome
from kgen.pipeline.keys import job_key
from kgen.pipeline.locate import merge_environments

# render_one is looked up here at each render: tests count renders through it.
from kgen.pipeline.one import render_one as render_one
from kgen.pipeline.parallel import imap_units, pool_size, settle
from kgen.pipeline.pending import Settling, parse_ahead, parse_all, parsed_job
from kgen.pipeline.prepare import frameworks, prepare_rendering, schemas_ahead
from kgen.pipeline.records import RunResult, TextSink, without_texts
from kgen.pipeline.stage import Stages
from kgen.pipeline.units import (
    Selectors,
    Unit,
    environment_for,
    envs_of,
    selectors_of,
    units_of,
)
from kgen.render.base import Environment
from kgen.rules.context import RuleContext
from kgen.rules.project import check_project


class _Work(NamedTuple):
    """Everything a render needs, set before worker processes fork so they inherit it.
    A NamedTuple: a frozen dataclass's methods were compiled from source at import
    (kgen's dataclasses: a twentieth of a one-spec validate)."""

    project: Project
    environments: list[tuple[Environment, list[Overlay]]]
    context: RuleContext
    keep: bool
    emit: bool
    texts: bool
    stages: Stages
    # Each environment's job selector, and the run's choice of pairs: what a worker
    # that parses a pending job needs to find the environments it goes into.
    selectors: Selectors
    select: Callable[[str, str], bool] | None
    # The sink keeps no texts (`build --check`): a worker sends none back, only
    # their digests (25 MB less to pickle and unpickle at 1,000 jobs × 4 envs).
    digests_only: bool = False


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
    # Pending jobs are parsed by the workers that render them, or here, first.
    loaded: list[Problem] = []
    if any(job.identity is None for job in project.jobs):
        pieces = len(project.jobs) * len(environments)
        if keep or wanted is not None or pool_size(pieces) < 2:
            loaded = parse_all(project, lean=not keep)
    units = units_of(project, environments, wanted=wanted, select=select)
    # A run over a few chosen files (select) renders too little for the cache to pay.
    use_cache = not keep and select is None
    selectors = selectors_of(project, environments)
    stages = Stages(context)
    work = _Work(
        project,
        *(environments, context, keep, emit, texts, stages, selectors, select),
        digests_only=not getattr(sink, "wants_texts", True),
    )
    gathered = Gathered(environments)
    settling = Settling(project)
    for env_index, job, outcome in _outcomes(
        project, work, units, use_cache, settling, progress, sink
    ):
        gathered.add(env_index, job, outcome)
    loaded += settling.settle()
    # Job identities parsed this run are kept whatever the run; renders only by runs
    # that used the cache.
    project.cache.save(whole=envs is None and jobs is None and select is None)
    settle()  # the workers left while the cache was written
    findings = gathered.into(result)
    findings += check_project(project, result)
    ignored = project.spec.lint.ignore
    result.problems = loaded + merge_environments(
        [f for f in findings if f.problem.code not in ignored], gathered.env_count
    )
    return result


def _outcomes(
    project: Project,
    work: _Work,
    units: list[Unit],
    use_cache: bool,
    settling: Settling,
    progress: Callable[[int, int], None] | None = None,
    sink: TextSink | None = None,
) -> Iterator[tuple[int, JobSource, Outcome]]:
    """(environment, job, outcome) of each job in each of its environments, job by
    job: from the cache where an earlier run left it, else rendered (on every core
    unless full renders are kept) and streamed back in order, each given to `sink`
    before the cache remembers it. A pending job is parsed by the worker that renders
    it; `settling` hears of it, and keeps the first job of each name."""
    global _work
    cache = project.cache if use_cache else None
    found: list[list[tuple[int, str, Outcome | None]] | None] = []
    missing: list[Unit] = []
    for job_index, env_indexes in units:
        if env_indexes is None:
            found.append(None)
            missing.append((job_index, None))
            continue
        prefix = job_key(project, project.jobs[job_index])
        entries: list[tuple[int, str, Outcome | None]] = []
        for env_index in env_indexes:
            key = f"{prefix}/{work.environments[env_index][0].name}"
            entry = (
                cache.render(key, emitted=work.emit, texts=work.texts)
                if cache
                else None
            )
            cached: Outcome | None = None
            if entry is not None:
                cached = (entry[0], None, entry[1])
            entries.append((env_index, key, cached))
        found.append(entries)
        fresh = tuple(e for e, _key, outcome in entries if outcome is None)
        if fresh:
            missing.append((job_index, fresh))
    # A pending job counts as going into every environment until its worker says.
    every = len(work.environments)
    total = sum(every if envs is None else len(envs) for _job, envs in missing)
    _work = work
    try:
        if missing:
            # Imported once here, not in every worker.
            used = frameworks(project, missing)
            forks = not work.keep and pool_size(total) > 1
            if forks:
                envs = [env for env, _overlays in work.environments]
                schemas_ahead(used, envs, work.context.kubernetes_version)
            prepare_rendering(emit=work.emit, frameworks=used, forks=forks)
        rendered = imap_units(
            _render_unit,
            missing,
            parallel=not work.keep,
            pieces=total,
            first=_parse_ahead,
        )
        done = 0
        for (job_index, _envs), known_entries in zip(units, found, strict=True):
            job = project.jobs[job_index]
            fresh_outcomes: Iterator[Outcome] = iter(())
            entries = known_entries or []
            if known_entries is None:
                parsed, outcomes = next(rendered)
                assert parsed is not None
                identity, env_indexes, errors = parsed
                total -= every - len(env_indexes)
                if not settling.parsed(job, identity, errors):
                    continue
                prefix = job_key(project, job)
                entries = [
                    (e, f"{prefix}/{work.environments[e][0].name}", None)
                    for e in env_indexes
                ]
                fresh_outcomes = iter(outcomes)
            elif any(outcome is None for _e, _k, outcome in entries):
                fresh_outcomes = iter(next(rendered)[1])
            made = sum(outcome is None for _e, _k, outcome in entries)
            if made:
                done += made
                if progress is not None:
                    progress(done, total)
            if not settling.first(job):  # a name used twice: the later job is left out
                continue
            for env_index, key, known in entries:
                outcome = next(fresh_outcomes) if known is None else known
                facts = outcome[0]
                if sink is not None and facts is not None:
                    env = work.environments[env_index][0].name
                    outcome = (sink(env, facts), *outcome[1:])
                if known is None and cache:
                    cache.remember_render(key, (outcome[0], outcome[2]))
                yield env_index, job, outcome
    finally:
        _work = None
        ahead.finish()


def _parse_ahead(units: Sequence[Unit]) -> None:
    assert _work is not None
    parse_ahead(_work.project.jobs, [job for job, envs in units if envs is None])


# A pending job's identity (None: it did not parse), its environments, its problems.
_Parsed = tuple[Identity | None, tuple[int, ...], list[Problem]]


def _render_unit(unit: Unit) -> tuple[_Parsed | None, list[Outcome]]:
    """A job rendered in each of its environments, in their order: the job's stages
    (merge, validation, rules) are shared by the environments that apply the same
    overlays, in this worker. A pending job is parsed first, and its environments
    found (kgen.pipeline.pending)."""
    assert _work is not None
    job_index, envs = unit
    job = _work.project.jobs[job_index]
    parsed: _Parsed | None = None
    if envs is None:
        own, errors = parsed_job(_work.project.jobs, job_index)
        if own is None:
            return (None, (), errors), []
        job = own
        envs = envs_of(job, _work.environments, _work.selectors, _work.select)
        parsed = (job.identity, envs, errors)
    elif not _work.keep:  # full renders keep the project's own job
        job = job.own()
    outcomes = [_render_in(job, *_work.environments[env]) for env in envs]
    shared = with_shared_names([facts for facts, _, _ in outcomes])
    return parsed, [
        (f, *outcome[1:]) for f, outcome in zip(shared, outcomes, strict=True)
    ]


def _render_in(job: JobSource, env: Environment, overlays: list[Overlay]) -> Outcome:
    assert _work is not None
    rendered, problems = render_one(job, env, overlays, _work.stages)
    if rendered is None:
        return None, None, problems
    header = file_header(job.file, env.name, rendered.overlays)
    facts = facts_of(
        rendered.spec, env, rendered.manifests, emit=_work.emit, header=header
    )
    if _work.digests_only:
        facts = without_texts(facts)
    return facts, rendered if _work.keep else None, problems
