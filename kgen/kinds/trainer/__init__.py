"""TrainJob (Kubeflow Trainer v2, trainer.kubeflow.org/v1alpha1): the same PyTorch job
spec, rendered for a trainer target as one TrainJob that names a training runtime.

A TrainJob has no replica specs: the runtime (a ClusterTrainingRuntime by default)
holds the JobSet template, and the TrainJob says the image, command, env, the number
of nodes and the resources per node; everything else about the pod goes through the
release's override mechanism (podTemplateOverrides on v2.1, runtimePatches from v2.2)
or is an error naming the target (kgen.kinds.trainer.unmappable).

The declaration only; the other modules are imported on first use (kgen.kinds.base).
"""

from __future__ import annotations

from kgen.kinds.base import Kind
from kgen.kinds.health import Health
from kgen.kinds.pytorch import MASTER, WORKER
from kgen.kinds.targets import TRAINER_TARGETS
from kgen.kinds.trainer.catalog import CATALOG

GROUP = "trainer.kubeflow.org"
# The ClusterTrainingRuntime Kubeflow installs for each framework kgen renders as a
# TrainJob (kubeflow/trainer@v2.3.0:manifests/base/runtimes/torch_distributed.yaml).
RUNTIMES: dict[str, str] = {"pytorch": "torch-distributed"}
# The ClusterTrainingRuntimes Kubeflow installs, none of which has a dataset or model
# initializer job (kubeflow/trainer@v2.3.0:manifests/base/runtimes/*.yaml): a
# TrainJob's initializer on one of them downloads nothing.
INSTALLED_RUNTIMES = frozenset(
    {
        "torch-distributed",
        "deepspeed-distributed",
        "jax-distributed",
        "mlx-distributed",
        "xgboost-distributed",
    }
)
# The runtime's replicated job and container (torch_distributed.yaml: both `node`).
NODE = "node"
# An MPI runtime's job that runs mpirun (deepspeed_distributed.yaml: `launcher`).
LAUNCHER = "launcher"
# torchrun's rendezvous port the torch plugin sets (kubeflow/trainer@v2.3.0:
# pkg/constants/constants.go ContainerTrainerPort).
TORCH_PORT = 29500
CONTROLLER = "trainer.kubeflow.org/trainjob-controller"
MULTIKUEUE = "kueue.x-k8s.io/multikueue"

# TrainJob conditions (trainjob_types.go at v2.3.0: TrainJobSuspended, TrainJobComplete,
# TrainJobFailed). There is no Running condition: Flux counts a TrainJob current once
# its JobSet has a ready or active job (`started_expr`), not at the end of training.
TRAINJOB_HEALTH = Health(
    conditions=(
        ("Failed", "Degraded", "The TrainJob failed"),
        ("Complete", "Healthy", "The TrainJob completed"),
        ("Suspended", "Suspended", "The TrainJob is suspended"),
    ),
    otherwise=("Progressing", "Waiting for the TrainJob to finish"),
    started_expr="has(status.jobsStatus) && status.jobsStatus.exists(j, j.ready > 0 || j.active > 0)",
)

KIND = Kind(
    framework="pytorch",
    kind="TrainJob",
    group=GROUP,
    # No replica specs: the runtime's JobSet template holds the pods.
    replica_key="",
    roles=(MASTER, WORKER),
    api_roles=("Master", "Worker"),
    container=NODE,
    port_name="",
    port=TORCH_PORT,
    default_restart="",
    targets=TRAINER_TARGETS,
    fields={},
    clean_pod_policy="",
    clean_pod_policy_on={},
    health=TRAINJOB_HEALTH,
    catalog=CATALOG,
    package=__name__,
    sections=("trainJob",),
)
