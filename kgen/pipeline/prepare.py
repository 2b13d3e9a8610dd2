"""What a run imports before its workers fork, so that each inherits it rather than
importing it again: the render, the rules, the output check and the models of the kinds
it renders.
"""

from __future__ import annotations

from kgen.check import ahead
from kgen.kinds import KINDS, kind_for
from kgen.load.project import Project
from kgen.output.emitter import pyyaml
from kgen.pipeline.pending import frameworks_named
from kgen.pipeline.units import Unit
from kgen.render.base import Environment


def frameworks(project: Project, missing: list[Unit]) -> set[str]:
    """The frameworks of the jobs to render (of a pending job, as its bytes say)."""
    used: set[str] = set()
    for job_index, envs in missing:
        job = project.jobs[job_index]
        if envs is None:
            used |= frameworks_named(job.raw)
        else:
            used.add(job.framework)
    return used


def schemas_ahead(
    frameworks: set[str], environments: list[Environment], version: str
) -> None:
    """The output schemas the renders of `frameworks` in `environments` are checked
    against, stored by a child while this process starts the workers (kgen.check.
    ahead): the ones the first renders need first."""
    jobs: dict[tuple[str, str], None] = {}
    for env in environments:
        for framework in sorted(frameworks):
            if framework in KINDS:
                jobs[kind_for(framework, env.target).kind, env.target.name] = None
    ahead.start(list(jobs), version)


def prepare_rendering(*, emit: bool, frameworks: set[str], forks: bool) -> None:
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
    # (10 ms of the rebuild after a one-spec edit). Only ahead of forking workers: a
    # run in one process whose manifests never need it would pay its start-up (2.5%
    # of a 200-job build's instructions) for nothing.
    if emit and forks:
        pyyaml()
