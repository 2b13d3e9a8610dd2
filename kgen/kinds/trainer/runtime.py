"""`kgen import` of a TrainJob whose runtime was imported beside it (a TrainingRuntime or
ClusterTrainingRuntime in the same input files): what the TrainJob inherits from that
runtime, read from the runtime itself rather than from kgen's table of the runtimes
Kubeflow installs (kgen.kinds.trainer.importer.RUNTIME_NPROC, policy.INSTALLED_POLICIES),
which a team's own runtime of the same name need not match.

The runtime is input like any other: each field is read only if it has the shape the
API gives it, and a runtime that does not is read as no runtime at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from kgen.kinds.trainer import GROUP

# What an ML policy gives a TrainJob that leaves numProcPerNode out, where the runtime
# does not say: torch's `auto` (the TrainJob's default since v2.2, when mlPolicy.torch
# lost its numProcPerNode), mpi's 1 (trainingruntime_types.go at v2.3.0, MPIMLPolicySource
# +kubebuilder:default=1).
POLICY_NPROC = {"torch": "auto", "mpi": "1"}


class Inherited(NamedTuple):
    """What a TrainJob takes from its runtime that the job spec says: the ML policy
    (torch, mpi; None for one kgen does not render) and the process count per node.
    The trainer node's image it takes too, where it leaves its own out; the imported
    spec leaves it out as well, so the TrainJob keeps following its runtime."""

    name: str
    policy: str | None
    nproc: str | None


def runtime_beside(
    kind: str, name: str, beside: Callable[[str, str], list[dict[str, Any]]]
) -> Inherited | None:
    """What the runtime `kind` `name` imported beside the TrainJob (`beside`: the
    objects of a kind and name in its environment and namespace) gives it; None when
    it was not imported with it."""
    for data in beside(kind, name):
        if not _is_runtime(data):
            continue
        spec = _mapping(data.get("spec"))
        policy_spec = _mapping(spec.get("mlPolicy"))
        policy = next(
            (p for p in POLICY_NPROC if isinstance(policy_spec.get(p), dict)), None
        )
        return Inherited(name, policy, _nproc(policy, policy_spec))
    return None


def _is_runtime(data: dict[str, Any]) -> bool:
    api = data.get("apiVersion")
    return isinstance(api, str) and api.split("/")[0] == GROUP


def _nproc(policy: str | None, policy_spec: dict[str, Any]) -> str | None:
    if policy is None:
        return None
    count = _mapping(policy_spec.get(policy)).get("numProcPerNode")
    if isinstance(count, int) and not isinstance(count, bool):
        return str(count)
    if isinstance(count, str) and count:
        return count
    return POLICY_NPROC[policy]


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
