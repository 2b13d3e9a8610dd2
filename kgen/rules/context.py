"""What rules may know beyond the job itself: the project's declarations."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgen.check import core
from kgen.errors import Problem
from kgen.spec.project import GpuPlacement

if TYPE_CHECKING:
    from kgen.spec.job import JobSpec


@dataclass(frozen=True)
class RuleContext:
    """What rules may know beyond the job: the project's declarations."""

    gpu_placement: GpuPlacement | None = None
    kubernetes_version: str = core.DEFAULT_KUBERNETES_VERSION
    job_names: str = "plain"
    crds: Mapping[tuple[str, str], Any] = field(default_factory=dict)
    # kgen.yaml lint.allowLiterals: variables allowed a literal value in every job.
    allowed_literals: frozenset[str] = frozenset()


Rule = Callable[["JobSpec", RuleContext], Iterator[Problem]]
