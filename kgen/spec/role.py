"""A role's own settings: what replaces or merges over the job-wide ones for one
replica type."""

from typing import Annotated, ClassVar

from pydantic import Field

from kgen.spec.base import SpecModel
from kgen.spec.fields import (
    Annotations,
    AtMost,
    Count,
    Image,
    LabelKey,
    LabelValue,
    Quantity,
)
from kgen.spec.pod import EnvVar, KubeObject, ResourceOverrides, Toleration
from kgen.spec.policy import RestartPolicy

# Core Containers and ContainerPorts, checked against the core definitions like
# affinity (kgen.check.core), so an error points at the line the user wrote.
Containers = Annotated[list[KubeObject], AtMost]
Ports = Annotated[list[KubeObject], AtMost]


class Role(SpecModel):
    """One replica type. `replicas` is this role's own pod count; every other key
    overrides the job-wide one for this role only (env merges by name, resources per
    resource)."""

    # A model whose fields are all Roles is a kind's roles (kgen.spec.placed reads this
    # instead of importing Role: the error path of validation would import itself).
    _is_role: ClassVar[bool] = True

    replicas: Count = Field(
        description="This role's pods (never a total).", examples=[3]
    )
    restart_policy: RestartPolicy | None = Field(
        None,
        description="Default OnFailure (PyTorch) or Never (TF).",
        examples=["ExitCode"],
    )
    image: Image | None = Field(
        None,
        description="Image for this role.",
        examples=["registry.example.com/ps:5.0"],
    )
    command: Annotated[list[str], AtMost] | None = Field(
        None, description="Command for this role.", examples=[["python", "/app/ps.py"]]
    )
    args: Annotated[list[str], AtMost] | None = Field(
        None, description="Arguments for this role.", examples=[["--role=ps"]]
    )
    env: Annotated[list[EnvVar], AtMost] | None = Field(
        None,
        description="Merged by name over the job's env.",
        examples=[[{"name": "BATCH", "value": "1024"}]],
    )
    resources: ResourceOverrides | None = Field(
        None,
        description="Replaces job resources per resource.",
        examples=[{"requests": {"memory": "64Gi"}}],
    )
    node_selector: Annotated[dict[LabelKey, LabelValue], AtMost] | None = Field(
        None,
        description="Merged over the job's node selector.",
        examples=[{"gpu.example.com/class": "a100"}],
    )
    tolerations: Annotated[list[Toleration], AtMost] | None = Field(
        None,
        description="Merged by key over the job's tolerations.",
        examples=[[{"key": "dedicated", "operator": "Exists"}]],
    )
    affinity: KubeObject | None = Field(
        None,
        description="Replaces the job's affinity.",
        examples=[{"nodeAffinity": {}}],
    )
    pod_labels: Annotated[dict[LabelKey, LabelValue], AtMost] | None = Field(
        None,
        description="Merged over the job's pod labels.",
        examples=[{"role-class": "io-heavy"}],
    )
    pod_annotations: Annotations | None = Field(
        None,
        description="Merged over the job's pod annotations.",
        examples=[{"prometheus.io/scrape": "true"}],
    )
    security_context: KubeObject | None = Field(
        None,
        description="Replaces the training container's SecurityContext.",
        examples=[{"runAsUser": 1000}],
    )
    pod_security_context: KubeObject | None = Field(
        None,
        description="Replaces the pod's PodSecurityContext.",
        examples=[{"fsGroup": 2000}],
    )
    shared_memory: Quantity | None = Field(
        None, description="Replaces the job's sharedMemory.", examples=["32Gi"]
    )
    containers: Containers | None = Field(
        None,
        description="Merged by name over the job's plain sidecars.",
        examples=[[{"name": "exporter", "image": "registry.example.com/exp:1.2"}]],
    )
    init_containers: Containers | None = Field(
        None,
        description="Merged by name over the job's init containers and native sidecars.",
        examples=[[{"name": "warmup", "image": "registry.example.com/warm:1.0"}]],
    )
    ports: Ports | None = Field(
        None,
        description="Merged by containerPort over the job's ports.",
        examples=[[{"name": "metrics", "containerPort": 9400}]],
    )
    liveness_probe: KubeObject | None = Field(
        None,
        description="Replaces the job's livenessProbe.",
        examples=[{"tcpSocket": {"port": 23456}}],
    )
    readiness_probe: KubeObject | None = Field(
        None,
        description="Replaces the job's readinessProbe.",
        examples=[{"httpGet": {"path": "/ready", "port": 8080}}],
    )
    startup_probe: KubeObject | None = Field(
        None,
        description="Replaces the job's startupProbe.",
        examples=[{"exec": {"command": ["true"]}}],
    )
