"""THE REGISTRY of job kinds: everything kgen knows about a kind (roles, operator
defaults, rendering per target, the env the operator injects, the output envelope, the
health check, import, plan) is in that kind's package, and the rest of kgen asks here.

Adding a kind is one package under kgen/kinds (see kgen.kinds.base for what it holds),
one entry in the list below, and its examples and tests. Kinds are looked up by the
spec's `framework:`; when a framework renders as different kinds on different targets
(Trainer v2's TrainJob), `kind_for` takes the target too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgen.errors import Problem
from kgen.kinds import jax, mpi, paddle, pytorch, tensorflow, trainer, xgboost
from kgen.kinds.base import Kind
from kgen.kinds.targets import ApiTarget

if TYPE_CHECKING:
    from kgen.spec.job import JobSpec

KINDS: dict[str, Kind] = {
    kind.framework: kind
    for kind in (
        pytorch.KIND,
        tensorflow.KIND,
        mpi.KIND,
        xgboost.KIND,
        jax.KIND,
        paddle.KIND,
    )
}
FRAMEWORKS: tuple[str, ...] = tuple(KINDS)
# Kinds a framework renders as on some targets only, instead of its own (TrainJob for
# pytorch on the Kubeflow Trainer v2 targets).
TARGET_KINDS: tuple[Kind, ...] = (trainer.KIND,)
# Every kind kgen renders, in registry order.
ALL_KINDS: tuple[Kind, ...] = (*KINDS.values(), *TARGET_KINDS)
_BY_KIND: dict[str, Kind] = {kind.kind: kind for kind in ALL_KINDS}
# Top-level spec sections that only some kinds take (TrainJob's `trainJob:`).
OWN_SECTIONS: frozenset[str] = frozenset(s for k in ALL_KINDS for s in k.sections)


def kind_for(framework: str, target: ApiTarget | str | None = None) -> Kind:
    """The kind a spec with this `framework:` renders as on `target` (its own kind when
    no target is named, or no target-specific kind serves the target)."""
    if target is not None:
        name = target if isinstance(target, str) else target.name
        for kind in TARGET_KINDS:
            if kind.framework == framework and name in kind.targets:
                return kind
    return KINDS[framework]


def kind_of(spec: JobSpec) -> Kind:
    """The kind whose model validated `spec` (TrainJob's extends PyTorchJob's)."""
    for kind in TARGET_KINDS:
        if kind.framework == spec.framework and kind.made(spec):
            return kind
    return KINDS[spec.framework]


def kind_named(kind: str) -> Kind | None:
    """The registered kind of a Kubernetes object of kind `kind`, if any."""
    return _BY_KIND.get(kind)


def kinds_on(target: ApiTarget) -> list[Kind]:
    """The kinds `target` serves, in registry order."""
    return [kind for kind in ALL_KINDS if target.name in kind.targets]


def foreign_sections(data: Any, target: str) -> tuple[Any, list[Problem]]:
    """`data` without the sections of kinds `target` does not render (a `trainJob:` on
    a training-operator target), and the errors that say so."""
    problems: list[Problem] = []
    for kind in ALL_KINDS:
        data, found = kind.foreign_sections(data, target)
        problems += found
    return data, problems
