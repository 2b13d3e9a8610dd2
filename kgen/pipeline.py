"""One run: for every environment and job, merge → validate → check → render.

Problems from every stage are collected, located at file:line:col through provenance,
de-duplicated across environments and sorted; nothing is written here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from kgen.discover import JobSource, Overlay, Project
from kgen.errors import Problem
from kgen.loader import nearest_origin
from kgen.merge import Layer, Provenance, merge_layers, selector_matches
from kgen.models import JOB_MODELS, JobSpec
from kgen.render import Environment, Manifest, render_job
from kgen.spec_rules import check_spec
from kgen.targets import DEFAULT_TARGET, TARGETS
from kgen.validate import validate_model


@dataclass(frozen=True)
class RenderedJob:
    """One job rendered for one environment."""

    env: Environment
    job: JobSource
    overlays: tuple[str, ...]
    manifests: list[Manifest]


@dataclass
class RunResult:
    problems: list[Problem] = field(default_factory=list)
    rendered: list[RenderedJob] = field(default_factory=list)
    environments: list[Environment] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


def environment_for(project: Project, name: str) -> tuple[Environment, list[Overlay]]:
    """The environment `name` and its overlays, in order; the last `target` wins."""
    settings = project.spec.environments[name]
    overlays = [project.overlays[o] for o in settings.overlays if o in project.overlays]
    target = DEFAULT_TARGET
    for overlay in overlays:
        target = overlay.spec.target or target
    return Environment(name, TARGETS[target], settings.namespace), overlays


def run(
    project: Project,
    *,
    envs: Iterable[str] | None = None,
    jobs: Iterable[str] | None = None,
) -> RunResult:
    result = RunResult()
    wanted_jobs = set(jobs) if jobs is not None else None
    found: dict[tuple[str | None, int | None, int | None, str, str], _Found] = {}
    env_count: dict[str, int] = {}  # per job: how many environments render it
    for env_name in envs if envs is not None else project.spec.environments:
        env, overlays = environment_for(project, env_name)
        selector = project.spec.environments[env_name].jobs
        result.environments.append(env)
        for job in project.jobs:
            if wanted_jobs is not None and job.name not in wanted_jobs:
                continue
            if not selector_matches(selector, job.doc.data):
                continue
            env_count[job.file] = env_count.get(job.file, 0) + 1
            rendered, problems = render_one(job, env, overlays)
            if rendered is not None:
                result.rendered.append(rendered)
            for problem in problems:
                key = (
                    problem.file,
                    problem.line,
                    problem.column,
                    problem.code,
                    problem.message,
                )
                found.setdefault(key, _Found(problem, job.file, []))[2].append(env_name)
    result.problems = _with_context(found.values(), env_count)
    return result


class _Found(NamedTuple):
    problem: Problem
    job_file: str
    envs: list[str]


def render_one(
    job: JobSource, env: Environment, overlays: list[Overlay]
) -> tuple[RenderedJob | None, list[Problem]]:
    applied = [o for o in overlays if selector_matches(o.spec.match, job.doc.data)]
    layers = [
        Layer(o.spec.patch, o.doc.positions, ("patch",))
        for o in applied
        if o.spec.patch
    ]
    merged = merge_layers(job.doc.data, layers)
    spec, problems = validate_model(JOB_MODELS[job.framework], merged)
    manifests: list[Manifest] = []
    if spec is not None:
        problems += check_spec(spec)
        manifests, render_problems = render_job(spec, env)
        problems += render_problems
    if problems:
        return None if _fatal(problems) else _rendered(
            env, job, applied, manifests, spec
        ), _locate(job, layers, problems)
    return _rendered(env, job, applied, manifests, spec), []


def _rendered(
    env: Environment,
    job: JobSource,
    applied: list[Overlay],
    manifests: list[Manifest],
    spec: JobSpec | None,
) -> RenderedJob:
    sourced = [replace(m, source=job.file) for m in manifests]
    return RenderedJob(env, job, tuple(o.name for o in applied), sourced)


def _fatal(problems: list[Problem]) -> bool:
    return any(p.severity == "error" for p in problems)


def _locate(
    job: JobSource, layers: list[Layer], problems: list[Problem]
) -> list[Problem]:
    # Provenance is only worth its cost when there is something to point at: merge again,
    # this time recording which file and line set each value.
    provenance = Provenance(dict(job.doc.positions))
    merge_layers(job.doc.data, layers, provenance=provenance)
    located = []
    for problem in problems:
        origin = nearest_origin(provenance.origins, problem.path, job.file)
        line, column = (
            (origin.key_line, origin.key_column)
            if problem.at_key
            else (origin.line, origin.column)
        )
        located.append(problem.at(origin.file, line, column))
    return located


def _with_context(found: Iterable[_Found], env_count: dict[str, int]) -> list[Problem]:
    problems = []
    for problem, job_file, envs in found:
        if len(envs) < env_count[job_file]:
            label = "environment" if len(envs) == 1 else "environments"
            problem = replace(problem, context=f"{label} {', '.join(envs)}")
        problems.append(problem)
    return sorted(problems, key=lambda p: p.sort_key)
