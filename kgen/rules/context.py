"""What rules may know beyond the job itself: the project's declarations."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from kgen.check import core
from kgen.errors import Problem
from kgen.spec.project import GpuPlacement

if TYPE_CHECKING:
    from kgen.spec.job import JobSpec


class RuleContext(NamedTuple):
    """What rules may know beyond the job: the project's declarations. A NamedTuple:
    a frozen dataclass's methods were compiled from source at import."""

    gpu_placement: GpuPlacement | None = None
    kubernetes_version: str = core.DEFAULT_KUBERNETES_VERSION
    job_names: str = "plain"
    crds: Mapping[tuple[str, str], Any] = MappingProxyType({})
    # kgen.yaml lint.allowLiterals: variables allowed a literal value in every job.
    allowed_literals: frozenset[str] = frozenset()


Rule = Callable[["JobSpec", RuleContext], Iterator[Problem]]
