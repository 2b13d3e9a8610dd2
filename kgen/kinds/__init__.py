"""THE REGISTRY of job kinds: everything kgen knows about a kind (roles, operator
defaults, rendering per target, the env the operator injects, the output envelope, the
health check, import, plan) is in that kind's package, and the rest of kgen asks here.

Adding a kind is one package under kgen/kinds (see kgen.kinds.base for what it holds),
one entry in the list below, and its examples and tests. Kinds are looked up by the
spec's `framework:`; when a framework renders as different kinds on different targets
(Trainer v2's TrainJob), `kind_for` takes the target too.
"""

from __future__ import annotations

from kgen.kinds import jax, mpi, paddle, pytorch, tensorflow, xgboost
from kgen.kinds.base import Kind
from kgen.kinds.targets import ApiTarget

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
_BY_KIND: dict[str, Kind] = {kind.kind: kind for kind in KINDS.values()}


def kind_for(framework: str) -> Kind:
    """The kind a spec with this `framework:` renders as."""
    return KINDS[framework]


def kind_named(kind: str) -> Kind | None:
    """The registered kind of a Kubernetes object of kind `kind`, if any."""
    return _BY_KIND.get(kind)


def kinds_on(target: ApiTarget) -> list[Kind]:
    """The kinds `target` serves, in registry order."""
    return [kind for kind in KINDS.values() if target.name in kind.targets]
