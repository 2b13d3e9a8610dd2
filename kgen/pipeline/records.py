"""What a run produces: each render, what it found, and the run as a whole.

These records are what the rules across jobs, the output tree, `plan`, `explain` and
`argocd` read; they sit apart from the run itself so that those readers do not import
the code that runs them (kgen.pipeline.run imports the rules across jobs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from kgen.errors import Problem
from kgen.load.jobs import JobSource
from kgen.merge.layers import Layer
from kgen.pipeline.facts import Facts
from kgen.render.base import Environment, Manifest

if TYPE_CHECKING:
    from kgen.spec.job import JobSpec


class RenderedJob(NamedTuple):
    """One job rendered for one environment, with what it was made from. A NamedTuple
    (as Render): a frozen dataclass's methods were compiled from source at import."""

    env: Environment
    job: JobSource
    overlays: tuple[str, ...]
    manifests: list[Manifest]
    spec: JobSpec
    layers: tuple[Layer, ...] = ()


class Render(NamedTuple):
    """What a run keeps of every render: the job, its overlays and its facts."""

    env: Environment
    job: JobSource
    overlays: tuple[str, ...]
    layers: tuple[Layer, ...]
    facts: Facts


class Finding(NamedTuple):
    """A located problem, the job it concerns (if any) and the environment."""

    problem: Problem
    job_file: str | None
    env: str


# Takes each render's facts as the run gets them, in order, with its environment's
# name; gives back the facts the run keeps (kgen.output.spool: without their texts).
# One whose `wants_texts` is False keeps none: the renders come without them.
TextSink = Callable[[str, Facts], Facts]


def without_texts(facts: Facts) -> Facts:
    """`facts` with each file known by its digest alone."""
    return facts._replace(files=tuple(f._replace(text="") for f in facts.files))


class RunResult:
    """What a run found. A plain class: as a dataclass its methods were compiled from
    source at import."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.renders: list[Render] = []
        self.environments: list[Environment] = []
        # The full renders (specs and object trees), kept only when a command asks.
        self.rendered: list[RenderedJob] = []
        # Environments where a job failed before its render: its claims are unknown.
        self.failed_envs: set[str] = set()

    def job_environments(self) -> dict[str, int]:
        """How many environments each job file was rendered in: a problem found in
        fewer of them names those (kgen.pipeline.locate.merge_environments)."""
        counts: dict[str, int] = {}
        for render in self.renders:
            counts[render.job.file] = counts.get(render.job.file, 0) + 1
        return counts

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]
