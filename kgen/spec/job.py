"""The job spec users write in `jobs/*.yaml`: what every kind shares, and its roles."""

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from kgen.kinds import FRAMEWORKS
from kgen.spec.addons import CodeSync, TensorBoard
from kgen.spec.base import SpecModel, new_list
from kgen.spec.fields import (
    AbsolutePath,
    Annotations,
    AtMost,
    DnsName,
    Image,
    Int64,
    LabelKey,
    LabelValue,
    ObjectName,
    Quantity,
)
from kgen.spec.lint import DEFAULT_LINT, LintSettings
from kgen.spec.patches import Patches
from kgen.spec.pod import (
    EnvFrom,
    EnvVar,
    KubeObject,
    Resources,
    Toleration,
)
from kgen.spec.policy import RunPolicy
from kgen.spec.role import Containers, Ports, Role
from kgen.spec.role_list import roles_set
from kgen.spec.storage import Volume

__all__ = ["JobSpec", "Role", "framework_field", "role_field", "role_items"]

if TYPE_CHECKING:
    from kgen.kinds.base import Kind, RoleDef

RUN_ID_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
RUN_ID_LENGTH = 20
RunId = Annotated[str, Field(pattern=RUN_ID_PATTERN, max_length=RUN_ID_LENGTH)]


class JobSpec(SpecModel):
    """What every kind's job spec shares; each kind's model (kgen/kinds/<kind>/spec.py)
    adds `framework`, its `roles` and its own fields."""

    if TYPE_CHECKING:
        # Declared by every kind's model, which is what generic code reads.
        framework: str
        roles: SpecModel

    name: DnsName = Field(
        description="Job name; defaults to the file name. Room is needed for pod names `<name>-<role>-<index>` (63 characters).",
        examples=["mnist-ddp"],
    )
    description: str | None = Field(
        None, description="Free text; not rendered.", examples=["MNIST with DDP"]
    )
    labels: Annotated[dict[LabelKey, LabelValue], AtMost] = Field(
        default_factory=dict,
        description="Labels on the job object; overlays can `match` on them.",
        examples=[{"team": "vision"}],
    )
    annotations: Annotations = Field(
        default_factory=dict,
        description="Annotations on the job object.",
        examples=[{"owner": "vision@example.com"}],
    )
    pod_labels: Annotated[dict[LabelKey, LabelValue], AtMost] = Field(
        default_factory=dict,
        description="Labels on every pod.",
        examples=[{"app": "mnist"}],
    )
    pod_annotations: Annotations = Field(
        default_factory=dict,
        description="Annotations on every pod.",
        examples=[{"sidecar.istio.io/inject": "false"}],
    )
    image: Image = Field(
        description="The training image. A TrainJob may leave it out (its own section below).",
        examples=["docker.io/pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime"],
    )
    image_pull_policy: Literal["Always", "IfNotPresent", "Never"] | None = Field(
        None, description="When to pull the image.", examples=["IfNotPresent"]
    )
    image_pull_secrets: Annotated[list[ObjectName], AtMost] = Field(
        default_factory=new_list,
        description="Registry credentials, by Secret name.",
        examples=[["registry-example-com"]],
    )
    command: Annotated[list[str], AtMost] | None = Field(
        None,
        description="Entrypoint, as a list (no shell quoting).",
        examples=[["torchrun", "train.py"]],
    )
    args: Annotated[list[str], AtMost] | None = Field(
        None, description="Arguments, as a list.", examples=[["--epochs", "10"]]
    )
    working_dir: AbsolutePath | None = Field(
        None,
        description="Working directory; `<codeSync.path>/<codeSync.folder>` with codeSync.",
        examples=["/app"],
    )
    env: Annotated[list[EnvVar], AtMost] = Field(
        default_factory=new_list,
        description="Environment variables (see below).",
        examples=[[{"name": "LOG_LEVEL", "value": "info"}]],
    )
    env_from: Annotated[list[EnvFrom], AtMost] = Field(
        default_factory=new_list,
        description="All keys of ConfigMaps or Secrets as variables.",
        examples=[[{"configMap": "settings"}]],
    )
    resources: Resources = Field(
        Resources.model_construct(),
        description="Per-pod resources (see below).",
        examples=[{"limits": {"memory": "8Gi"}, "gpu": 1}],
    )
    shared_memory: Quantity | None = Field(
        None,
        description="A memory-backed /dev/shm of this size (PyTorch data loaders need it).",
        examples=["2Gi"],
    )
    volumes: Annotated[list[Volume], AtMost] = Field(
        default_factory=new_list,
        description="Volumes mounted in every role (see below).",
        examples=[[{"name": "data", "claim": "mnist-data", "mountPath": "/data"}]],
    )
    node_selector: Annotated[dict[LabelKey, LabelValue], AtMost] = Field(
        default_factory=dict,
        description="Node labels pods must match.",
        examples=[{"cloud.google.com/gke-accelerator": "nvidia-tesla-t4"}],
    )
    tolerations: Annotated[list[Toleration], AtMost] = Field(
        default_factory=new_list,
        description="Taints pods tolerate (see below).",
        examples=[[{"key": "nvidia.com/gpu", "operator": "Exists"}]],
    )
    affinity: KubeObject | None = Field(
        None,
        description="A Kubernetes Affinity, checked against the core API.",
        examples=[{"podAntiAffinity": {}}],
    )
    priority_class_name: ObjectName | None = Field(
        None, description="Pod PriorityClass.", examples=["training-high"]
    )
    scheduler_name: str | None = Field(
        None, description="Scheduler for the pods.", examples=["volcano"]
    )
    service_account_name: ObjectName | None = Field(
        None, description="ServiceAccount the pods run as.", examples=["trainer"]
    )
    security_context: KubeObject | None = Field(
        None,
        description="The training container's SecurityContext.",
        examples=[{"allowPrivilegeEscalation": False}],
    )
    pod_security_context: KubeObject | None = Field(
        None, description="The pod's PodSecurityContext.", examples=[{"fsGroup": 1000}]
    )
    host_network: bool = Field(
        False,
        description="Use the node's network (sets dnsPolicy ClusterFirstWithHostNet).",
        examples=[True],
    )
    host_ipc: bool = Field(
        False,
        alias="hostIPC",
        description="Share the node's IPC namespace.",
        examples=[True],
    )
    host_pid: bool = Field(
        False,
        alias="hostPID",
        description="Share the node's PID namespace.",
        examples=[True],
    )
    containers: Containers = Field(
        default_factory=new_list,
        description="Plain sidecars: core Containers beside the trainer, in every pod. The pod does not finish while one runs (`sidecar-blocks-completion`): only for a sidecar that exits when the trainer does; one that runs until the pod ends belongs under initContainers with `restartPolicy: Always`.",
        examples=[[{"name": "exporter", "image": "registry.example.com/exp:1.2"}]],
    )
    init_containers: Containers = Field(
        default_factory=new_list,
        description="Core Containers that run before the trainer (after codeSync). One with `restartPolicy: Always` is a native sidecar (Kubernetes 1.29+): it starts before the trainer, runs beside it and ends with the pod.",
        examples=[
            [{"name": "logs", "image": "fluent-bit:3.0", "restartPolicy": "Always"}]
        ],
    )
    ports: Ports = Field(
        default_factory=new_list,
        description="The trainer's ports beside the operator's; one named as the operator's port moves it.",
        examples=[[{"name": "metrics", "containerPort": 9400}]],
    )
    liveness_probe: KubeObject | None = Field(
        None,
        description="The trainer's Probe.",
        examples=[{"tcpSocket": {"port": 23456}}],
    )
    readiness_probe: KubeObject | None = Field(
        None,
        description="The trainer's Probe.",
        examples=[{"tcpSocket": {"port": 23456}}],
    )
    startup_probe: KubeObject | None = Field(
        None,
        description="The trainer's Probe.",
        examples=[{"exec": {"command": ["true"]}}],
    )
    lifecycle: KubeObject | None = Field(
        None,
        description="The trainer's Lifecycle hooks.",
        examples=[{"preStop": {"exec": {"command": ["/bin/flush"]}}}],
    )
    runtime_class_name: ObjectName | None = Field(
        None, description="The pods' RuntimeClass.", examples=["nvidia"]
    )
    dns_policy: (
        Literal["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"] | None
    ) = Field(None, description="The pods' DNS policy.", examples=["None"])
    dns_config: KubeObject | None = Field(
        None, description="A PodDNSConfig.", examples=[{"nameservers": ["10.0.0.10"]}]
    )
    host_aliases: Annotated[list[KubeObject], AtMost] = Field(
        default_factory=new_list,
        description="HostAliases in every pod's /etc/hosts.",
        examples=[[{"ip": "10.0.0.5", "hostnames": ["storage.local"]}]],
    )
    topology_spread_constraints: Annotated[list[KubeObject], AtMost] = Field(
        default_factory=new_list,
        description="TopologySpreadConstraints of every pod.",
        examples=[
            [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                }
            ]
        ],
    )
    termination_grace_period_seconds: Int64 | None = Field(
        None, ge=0, description="Seconds a pod gets to stop.", examples=[120]
    )
    run_policy: RunPolicy = Field(
        RunPolicy.model_construct(),
        description="Run policy (see below).",
        examples=[{"backoffLimit": 3}],
    )
    tensorboard: TensorBoard | None = Field(
        None,
        description="TensorBoard over the logs (see below).",
        examples=[{"logDir": "/data/logs"}],
    )
    code_sync: CodeSync | None = Field(
        None,
        description="Clone code before training (see below).",
        examples=[{"repo": "https://github.com/org/train.git", "ref": "main"}],
    )
    run_id: RunId | None = Field(
        None,
        description="Appended to the job's object name (`<name>-<runId>`): a new run id is a new job, since the operator never re-runs a finished one.",
        examples=["r7"],
    )
    patches: Patches = Field(
        default_factory=new_list,
        description="Changes to the rendered objects, checked after (see below and docs/patches.md); a last resort for what the spec does not model.",
        examples=[
            [{"ops": [{"op": "add", "path": "/spec/runPolicy/suspend", "value": True}]}]
        ],
    )
    lint: LintSettings = Field(
        DEFAULT_LINT,
        description="Silence policy rules for this job, with reasons.",
        examples=[{"ignore": {"resources-missing": "best-effort smoke test"}}],
    )


def framework_field(kind: "Kind") -> Any:
    """A kind model's `framework:`, required, naming every framework there is."""
    names = " or ".join(f"`{name}`" for name in FRAMEWORKS)
    return Field(description=f"{names}.", examples=[kind.framework])


def role_field(role: "RoleDef") -> Any:
    """A kind's roles model's key for `role`: optional, with its pod count."""
    return Field(
        None,
        description=role.description,
        examples=[{"replicas": role.example_replicas}],
    )


def role_items(spec: JobSpec) -> list[tuple[str, Role]]:
    """The roles that are set, in the order the kind declares them."""
    return roles_set(spec)
