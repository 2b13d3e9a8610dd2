"""What a run renders: its environments, each with its overlays, and each job with the
environments it goes into (a job is one unit of work: parsed once, rendered in each).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgen.kinds.targets import DEFAULT_TARGET, TARGETS
from kgen.load.jobs import JobSource
from kgen.load.project import Overlay, Project
from kgen.merge.select import selector_matches
from kgen.render.base import Environment
from kgen.rules.forbidden import forbidden_rules

# A job's index in the project, and the indexes of the environments it goes into
# (None: a pending job, whose worker finds them once it has parsed it).
Unit = tuple[int, tuple[int, ...] | None]
Selectors = list[Any]


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


def units_of(
    project: Project,
    environments: list[tuple[Environment, list[Overlay]]],
    *,
    wanted: set[str] | None,
    select: Callable[[str, str], bool] | None,
) -> list[Unit]:
    """Each job (of the `wanted` names, if given) and the environments whose selector
    picks it (and `select`, if given, for the pair), in the project's orders."""
    selectors = selectors_of(project, environments)
    units: list[Unit] = []
    for job_index, job in enumerate(project.jobs):
        if job.identity is None:  # never with `wanted` (kgen.pipeline.pending)
            units.append((job_index, None))
            continue
        if wanted is not None and job.name not in wanted:
            continue
        units.append((job_index, envs_of(job, environments, selectors, select)))
    return units


def selectors_of(
    project: Project, environments: list[tuple[Environment, list[Overlay]]]
) -> Selectors:
    return [project.spec.environments[env.name].jobs for env, _ in environments]


def envs_of(
    job: JobSource,
    environments: list[tuple[Environment, list[Overlay]]],
    selectors: Selectors,
    select: Callable[[str, str], bool] | None,
) -> tuple[int, ...]:
    """The environments that render `job`, by index."""
    return tuple(
        env_index
        for env_index, (env, _overlays) in enumerate(environments)
        # Cheapest test first: a one-file validate picks 4 of 4,000 pairs.
        if (select is None or select(env.name, job.file))
        and selector_matches(selectors[env_index], job.selected)
    )
