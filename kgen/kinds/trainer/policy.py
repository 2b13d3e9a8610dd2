"""Which ML policy a TrainJob's runtime has: torch (torchrun and PET_*) or mpi (a
launcher running mpirun over ssh, a hostfile). kgen cannot read the cluster's runtimes,
so it knows the ClusterTrainingRuntimes Kubeflow installs by name, and a job on any
other runtime declares the policy (`trainJob.runtimePolicy`) or has none kgen knows.
"""

from __future__ import annotations

from typing import Literal

from kgen.kinds.trainer import RUNTIMES
from kgen.kinds.trainer.spec import TrainJobSpec

Policy = Literal["torch", "mpi", "jax", "xgboost"]

# spec.mlPolicy of each ClusterTrainingRuntime Kubeflow installs
# (kubeflow/trainer@v2.3.0: manifests/base/runtimes/*.yaml; tests/test_trainjob_mpi.py
# checks the table against those files).
INSTALLED_POLICIES: dict[str, Policy] = {
    "torch-distributed": "torch",
    "deepspeed-distributed": "mpi",
    "mlx-distributed": "mpi",
    "jax-distributed": "jax",
    "xgboost-distributed": "xgboost",
}


def runtime_name(job: TrainJobSpec) -> str:
    ref = job.train_job.runtime_ref
    return ref.name if ref else RUNTIMES[job.framework]


def installed_policy(job: TrainJobSpec) -> Policy | None:
    """The policy of a runtime Kubeflow installs, by name; None for any other."""
    ref = job.train_job.runtime_ref
    if ref is not None and ref.kind != "ClusterTrainingRuntime":
        return None
    return INSTALLED_POLICIES.get(runtime_name(job))


def policy(job: TrainJobSpec) -> Policy | None:
    """The runtime's policy: the one kgen knows for the name, else the declared one,
    else None (unknown: kgen describes no environment and warns about no launcher)."""
    return installed_policy(job) or job.train_job.runtime_policy
