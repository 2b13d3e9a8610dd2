"""MPIJob: a launcher that runs mpirun and workers that host the ranks (Horovod,
DeepSpeed). Two operators serve it under the same group and kind: mpi-operator's
kubeflow.org/v2beta1 (target mpi-operator) and training-operator's older kubeflow.org/v1
(targets v1 and training-operator-1.4 and later). A cluster runs one of them, and an
environment's one target says which.

The declaration only; the model, renderer, env contract, rules, envelope and import are
this package's other modules, imported on first use (kgen.kinds.base).
"""

from __future__ import annotations

from kgen.kinds.base import TRAINING_JOB_HEALTH, Kind, RoleDef, SingleRole
from kgen.kinds.mpi.catalog import CATALOG
from kgen.kinds.targets import MPI_OPERATOR, targets_with

# mpi-operator v0.8.0's MPIJobSpec fields that training-operator's MPIJob v1 lacks
# (kubeflow/mpi-operator@v0.8.0:pkg/apis/kubeflow/v2beta1/types.go).
V2 = frozenset({MPI_OPERATOR})
BOTH = targets_with("kind:MPIJob") | {MPI_OPERATOR}

LAUNCHER = RoleDef(
    "launcher",
    "Launcher",
    "Runs mpirun; exactly 1 replica, no GPU unless asked.",
    1,
    single=SingleRole("mpi-launcher-replicas", "exactly one"),
    # The launcher only starts the ranks over ssh; mpi-operator even hides its GPUs
    # (NVIDIA_VISIBLE_DEVICES="") unless runLauncherAsWorker.
    gpu_by_default=False,
)
WORKER = RoleDef("worker", "Worker", "The hosts of the MPI ranks.", 2)

KIND = Kind(
    framework="mpi",
    kind="MPIJob",
    group="kubeflow.org",
    replica_key="mpiReplicaSpecs",
    roles=(LAUNCHER, WORKER),
    api_roles=("Launcher", "Worker"),
    # training-operator's MPIJob v1 default container name and port constants
    # (mpi_types.go); neither operator looks the container up by name (both use the
    # first container) nor opens the port, so kgen renders no port for MPIJobs.
    container="mpi",
    port_name="mpi-port",
    port=9999,
    default_restart="Never",
    # MPIJob v1 exists from training-operator 1.4 (#1457); mpi-operator is its own target.
    targets=BOTH,
    fields={
        "slotsPerWorker": BOTH,
        "runLauncherAsWorker": V2,
        "mpiImplementation": V2,
        "sshAuthMountPath": V2,
        "launcherCreationPolicy": V2,
    },
    clean_pod_policy="None",
    clean_pod_policy_on={},
    health=TRAINING_JOB_HEALTH,
    catalog=CATALOG,
    package=__name__,
    first_container=True,
    # Both operators append to the first container (kgen.kinds.mpi.env).
    appends_env=True,
)
