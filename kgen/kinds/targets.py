"""Kubeflow API targets: what each apiVersion and layout can express.

kubeflow-api.md §1-§3: `kubeflow.org/v1` has two incompatible shapes (run fields under
`spec.runPolicy` from training-operator 1.3, directly under `spec` before), and the beta
versions each know fewer fields. A spec field a target cannot express is an error naming
the target; kgen never drops it silently (the API server would prune it without a word).

A target says where run fields live and which of them it has; each kind says on which
targets it exists and which of its own fields each has (kgen.kinds.base.Kind), so
`kgen.kinds.kinds_on` answers which kinds a target serves. A release line of another
operator (Trainer v2, mpi-operator) is another target here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Run fields (by their YAML path) that only some targets have.
OPTIONAL_RUN_FIELDS = (
    "runPolicy.backoffLimit",
    "runPolicy.activeDeadlineSeconds",
    "runPolicy.schedulingPolicy",
)
# Every run field, in the order of the operator's Go struct (common_types.go RunPolicy).
RUN_FIELDS = (
    "cleanPodPolicy",
    "ttlSecondsAfterFinished",
    "activeDeadlineSeconds",
    "backoffLimit",
    "schedulingPolicy",
)


@dataclass(frozen=True)
class ApiTarget:
    name: str
    api_version: str
    description: str
    # Where cleanPodPolicy, backoffLimit and the other run fields live.
    run_fields_at: Literal["runPolicy", "spec"]
    supports: frozenset[str]


# mpi-operator's MPIJob v2beta1 shares group and kind with training-operator's MPIJob v1,
# so a cluster runs one or the other; an environment's one target says which.
MPI_OPERATOR = "mpi-operator"

_LEGACY_RUN = frozenset({"runPolicy.backoffLimit", "runPolicy.activeDeadlineSeconds"})

TARGETS: dict[str, ApiTarget] = {
    target.name: target
    for target in (
        ApiTarget(
            name="v1",
            api_version="kubeflow.org/v1",
            description="kubeflow.org/v1 with spec.runPolicy, training-operator 1.3 and later",
            run_fields_at="runPolicy",
            supports=frozenset(OPTIONAL_RUN_FIELDS),
        ),
        ApiTarget(
            name="v1-legacy",
            api_version="kubeflow.org/v1",
            description="kubeflow.org/v1 with run fields under spec, Kubeflow 0.6 to 1.2",
            run_fields_at="spec",
            supports=_LEGACY_RUN,
        ),
        ApiTarget(
            name="v1beta2",
            api_version="kubeflow.org/v1beta2",
            description="kubeflow.org/v1beta2, Kubeflow 0.5 and 0.6",
            run_fields_at="spec",
            supports=_LEGACY_RUN,
        ),
        ApiTarget(
            name="v1beta1",
            api_version="kubeflow.org/v1beta1",
            description="kubeflow.org/v1beta1, Kubeflow 0.4",
            run_fields_at="spec",
            supports=frozenset(),
        ),
        # Another operator's API: only its MPIJob lives here (kgen.kinds.mpi).
        ApiTarget(
            name=MPI_OPERATOR,
            api_version="kubeflow.org/v2beta1",
            description="kubeflow.org/v2beta1 MPIJob, mpi-operator 0.8",
            run_fields_at="runPolicy",
            supports=frozenset(OPTIONAL_RUN_FIELDS),
        ),
    )
}
DEFAULT_TARGET = "v1"


def target_of_manifest(api_version: str, spec: dict[str, object]) -> str:
    """The target an existing job object was written for (`kgen import`).

    kubeflow.org/v1 is the legacy layout only when run fields sit directly under spec;
    without any it reads the same in both, and current operators are the likelier
    reader. An apiVersion no target has gives its version, which names no target."""
    matching = [t for t in TARGETS.values() if t.api_version == api_version]
    if len(matching) > 1:
        legacy = "runPolicy" not in spec and any(k in spec for k in RUN_FIELDS)
        layout = "spec" if legacy else "runPolicy"
        return next(t.name for t in matching if t.run_fields_at == layout)
    return matching[0].name if matching else api_version.rsplit("/", 1)[1]
