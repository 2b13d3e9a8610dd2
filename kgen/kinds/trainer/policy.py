"""Which ML policy a TrainJob's runtime has: torch (torchrun and PET_*) or mpi (a
launcher running mpirun over ssh, a hostfile). kgen cannot read the cluster's runtimes,
so it knows the ClusterTrainingRuntimes Kubeflow installs by name, and a job on any
other runtime declares the policy (`trainJob.runtimePolicy`) or has none kgen knows.
"""

from __future__ import annotations

from typing import Literal

from kgen.kinds.trainer import INSTALLED_RUNTIMES, RUNTIMES
from kgen.kinds.trainer.spec import TrainJobSpec
from kgen.spec.keys import spelled_like

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


# How alike a runtime's name and an installed one's must be to call it a slip
# (difflib's ratio). Kubeflow's runtimes share `-distributed`, so a team's own
# (ray-distributed, xgb-distributed) scores up to 0.88 against one of them; a letter
# or two off (torch-distribted, troch-distributed) scores 0.94 and more.
_SLIP = 0.9


def misspelled_runtime(job: TrainJobSpec) -> str | None:
    """The ClusterTrainingRuntime Kubeflow installs that the job's runtimeRef names
    but for a slip (torch-distribted: torch-distributed); None for an installed one or
    one of the team's own (kgen cannot read the cluster's runtimes: a name far from
    them all, or one that extends one, torch-distributed-gpu, is taken as the team's)."""
    ref = job.train_job.runtime_ref
    if ref is None or ref.kind != "ClusterTrainingRuntime":
        return None
    if ref.name in INSTALLED_RUNTIMES:
        return None
    close = spelled_like(ref.name, sorted(INSTALLED_RUNTIMES), cutoff=_SLIP)
    return None if close is None or close in ref.name else close
