"""PyTorchJob (training-operator): a master and workers, or elastic workers alone.

The declaration only; the model, renderer, env contract, rules, envelope and import are
this package's other modules, imported on first use (kgen.kinds.base).
"""

from __future__ import annotations

from kgen.kinds.base import TRAINING_JOB_HEALTH, Kind, RoleDef, SingleRole
from kgen.kinds.pytorch.catalog import CATALOG
from kgen.kinds.targets import MPI_OPERATOR, TARGETS, TRAINER_TARGETS, targets_with

# elasticPolicy arrived in training-operator 1.4, spec.nprocPerNode in 1.7
# (kubeflow-api.md §1; the 1.6 CRDs have no nprocPerNode).
ELASTIC = targets_with("elasticPolicy")
NPROC = targets_with("nprocPerNode")
# What starts torchrun, which reads PET_NPROC_PER_NODE: the command itself, or
# Python's module of it.
TORCHRUN = ("torchrun", "torch.distributed.run", "torch.distributed.launch")
# Worker-only jobs need training-operator 1.4 or later (trainer#1762).
WORKER_ONLY = targets_with("worker-only")

MASTER = RoleDef(
    "master",
    "Master",
    "Rank 0; exactly 1 replica.",
    1,
    single=SingleRole("pytorch-master-replicas", "exactly one"),
)
WORKER = RoleDef("worker", "Worker", "The other ranks.", 3, scaled=True)

KIND = Kind(
    framework="pytorch",
    kind="PyTorchJob",
    group="kubeflow.org",
    replica_key="pytorchReplicaSpecs",
    roles=(MASTER, WORKER),
    api_roles=("Master", "Worker"),
    container="pytorch",
    port_name="pytorchjob-port",
    port=23456,
    default_restart="OnFailure",
    targets=frozenset(TARGETS) - {MPI_OPERATOR} - TRAINER_TARGETS,
    fields={"elasticPolicy": ELASTIC, "nprocPerNode": NPROC},
    clean_pod_policy="None",
    clean_pod_policy_on={},
    health=TRAINING_JOB_HEALTH,
    catalog=CATALOG,
    package=__name__,
    appends_env=True,
)
