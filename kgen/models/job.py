"""The job spec users write in `jobs/*.yaml`: one model per framework."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kgen.fields import (
    AbsolutePath,
    Count,
    DnsName,
    Image,
    LabelKey,
    LabelValue,
    NprocPerNode,
    ObjectName,
    Quantity,
)
from kgen.models.addons import CodeSync, TensorBoard
from kgen.models.base import SpecModel
from kgen.models.pod import (
    EnvFrom,
    EnvVar,
    KubeObject,
    ResourceOverrides,
    Resources,
    Toleration,
)
from kgen.models.policy import ElasticPolicy, RestartPolicy, RunPolicy
from kgen.models.storage import Volume

Framework = Literal["pytorch", "tensorflow"]


class Role(SpecModel):
    """One replica type. `replicas` is this role's own pod count; the other keys override
    the job-wide ones for this role only (env merges by name)."""

    replicas: Count
    restart_policy: RestartPolicy | None = None
    image: Image | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    env: list[EnvVar] | None = None
    resources: ResourceOverrides | None = None
    node_selector: dict[LabelKey, LabelValue] | None = None
    tolerations: list[Toleration] | None = None
    affinity: KubeObject | None = None


class PyTorchRoles(SpecModel):
    master: Role | None = None
    worker: Role | None = None


class TFRoles(SpecModel):
    chief: Role | None = None
    worker: Role | None = None
    ps: Role | None = None
    evaluator: Role | None = None


class JobSpecBase(SpecModel):
    name: DnsName
    description: str | None = None
    labels: dict[LabelKey, LabelValue] = Field(default_factory=dict)
    annotations: dict[LabelKey, str] = Field(default_factory=dict)
    pod_labels: dict[LabelKey, LabelValue] = Field(default_factory=dict)
    pod_annotations: dict[LabelKey, str] = Field(default_factory=dict)
    image: Image
    image_pull_policy: Literal["Always", "IfNotPresent", "Never"] | None = None
    image_pull_secrets: list[ObjectName] = Field(default_factory=list)
    command: list[str] | None = None
    args: list[str] | None = None
    working_dir: AbsolutePath | None = None
    env: list[EnvVar] = Field(default_factory=list)
    env_from: list[EnvFrom] = Field(default_factory=list)
    resources: Resources = Resources()
    shared_memory: Quantity | None = None
    volumes: list[Volume] = Field(default_factory=list)
    node_selector: dict[LabelKey, LabelValue] = Field(default_factory=dict)
    tolerations: list[Toleration] = Field(default_factory=list)
    affinity: KubeObject | None = None
    priority_class_name: ObjectName | None = None
    scheduler_name: str | None = None
    service_account_name: ObjectName | None = None
    security_context: KubeObject | None = None
    pod_security_context: KubeObject | None = None
    host_network: bool = False
    host_ipc: bool = Field(False, alias="hostIPC")
    run_policy: RunPolicy = RunPolicy()
    tensorboard: TensorBoard | None = None
    code_sync: CodeSync | None = None


class PyTorchJobSpec(JobSpecBase):
    """A PyTorchJob: `master` (exactly 1) and `worker` roles."""

    framework: Literal["pytorch"]
    roles: PyTorchRoles
    nproc_per_node: NprocPerNode | None = None
    elastic_policy: ElasticPolicy | None = None


class TFJobSpec(JobSpecBase):
    """A TFJob: `chief` (at most 1), `worker`, `ps` and `evaluator` roles."""

    framework: Literal["tensorflow"]
    roles: TFRoles
    success_policy: Literal["AllWorkers"] | None = None
    enable_dynamic_worker: bool | None = None


JobSpec = PyTorchJobSpec | TFJobSpec
JOB_MODELS: dict[str, type[PyTorchJobSpec] | type[TFJobSpec]] = {
    "pytorch": PyTorchJobSpec,
    "tensorflow": TFJobSpec,
}


def role_items(spec: JobSpec) -> list[tuple[str, Role]]:
    """The roles that are set, in the order the model declares them."""
    roles = spec.roles
    return [
        (name, role)
        for name in type(roles).model_fields
        if (role := getattr(roles, name))
    ]
