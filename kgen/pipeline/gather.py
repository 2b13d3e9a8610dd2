"""A run's renders gathered as they stream in, into the order its readers expect.

The renders arrive job by job (each job in all its environments); the tree, the rules
across jobs and the reports read them environment by environment, jobs in order. Each
is filed where it goes as it arrives, while the workers render the rest: sorting them
out after the last render was a serial step with one core idle (10 ms of a cold build
of 1,000 jobs in 4 environments).
"""

from __future__ import annotations

from kgen.errors import Problem
from kgen.load.jobs import JobSource
from kgen.load.project import Overlay
from kgen.merge.layers import Layer
from kgen.pipeline.facts import Facts
from kgen.pipeline.one import applied_overlays
from kgen.pipeline.records import Finding, Render, RenderedJob, RunResult
from kgen.pipeline.stage import layers_of
from kgen.render.base import Environment

Outcome = tuple[Facts | None, RenderedJob | None, list[Problem]]


class Gathered:
    """Each environment's renders, full renders and findings, in job order."""

    def __init__(self, environments: list[tuple[Environment, list[Overlay]]]) -> None:
        self.environments = environments
        self.renders: list[list[Render]] = [[] for _ in environments]
        self.rendered: list[list[RenderedJob]] = [[] for _ in environments]
        self.findings: list[list[Finding]] = [[] for _ in environments]
        self.failed: list[bool] = [False for _ in environments]
        # Per job: how many environments render it.
        self.env_count: dict[str, int] = {}
        # One tuple of names and of layers for each list of overlays, shared by its
        # renders (40,000 at 10,000 jobs).
        self._shared: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[Layer, ...]]]
        self._shared = {}

    def add(self, env_index: int, job: JobSource, outcome: Outcome) -> None:
        facts, rendered, problems = outcome
        env, overlays = self.environments[env_index]
        self.env_count[job.file] = self.env_count.get(job.file, 0) + 1
        if facts is not None:
            applied = applied_overlays(job, overlays)
            named = tuple(o.name for o in applied)
            if named not in self._shared:
                self._shared[named] = named, layers_of(applied)
            self.renders[env_index].append(
                Render(env, job, *self._shared[named], facts)
            )
        else:
            self.failed[env_index] = True
        if rendered is not None:
            self.rendered[env_index].append(rendered)
        if problems:
            self.findings[env_index] += [
                Finding(p, job.file, env.name) for p in problems
            ]

    def into(self, result: RunResult) -> list[Finding]:
        """The renders into `result`, environment by environment; the findings, in
        the same order."""
        for env_index, (env, _overlays) in enumerate(self.environments):
            result.renders += self.renders[env_index]
            result.rendered += self.rendered[env_index]
            if self.failed[env_index]:
                result.failed_envs.add(env.name)
        return [finding for found in self.findings for finding in found]
