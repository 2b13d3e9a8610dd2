"""The job spec users write in `jobs/*.yaml`, as pydantic models.

Keys are camelCase like Kubernetes; unknown keys are errors. Shapes and single values are
checked here; rules that relate several fields live in `spec_rules` so that each problem
can point at the exact field.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from kgen.fields import (
    AbsolutePath,
    Count,
    DnsLabel,
    DnsName,
    EnvName,
    GpuResource,
    Image,
    Int32,
    LabelKey,
    LabelValue,
    NprocPerNode,
    ObjectName,
    PositiveSeconds,
    Quantity,
    SubPath,
)

RestartPolicy = Literal["Always", "OnFailure", "Never", "ExitCode"]
CleanPodPolicy = Literal["None", "Running", "All"]
Framework = Literal["pytorch", "tensorflow"]


class SpecModel(BaseModel):
    """Base for every model that reads user YAML: strict types, camelCase, no extras."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        alias_generator=to_camel,
        populate_by_name=False,
    )


class EnvVar(SpecModel):
    """A literal environment variable for the training container."""

    name: EnvName
    value: str


class ResourceAmounts(SpecModel):
    cpu: Quantity | None = None
    memory: Quantity | None = None
    ephemeral_storage: Quantity | None = Field(None, alias="ephemeral-storage")


class Resources(SpecModel):
    """Per-pod resources. GPUs are a count of `gpuResource` and go into limits."""

    requests: ResourceAmounts = ResourceAmounts()
    limits: ResourceAmounts = ResourceAmounts()
    gpu: int = Field(0, ge=0, le=64)
    gpu_resource: GpuResource = "nvidia.com/gpu"


class Volume(SpecModel):
    """Mount an existing PersistentVolumeClaim into every replica."""

    name: DnsLabel
    claim: ObjectName
    mount_path: AbsolutePath
    sub_path: SubPath | None = None
    read_only: bool = False


class Toleration(SpecModel):
    key: LabelKey | None = None
    operator: Literal["Exists", "Equal"] | None = None
    value: LabelValue | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = None
    toleration_seconds: int | None = None


class Role(SpecModel):
    """One replica type. `replicas` is this role's own pod count, nothing else."""

    replicas: Count
    restart_policy: RestartPolicy | None = None


class PyTorchRoles(SpecModel):
    master: Role | None = None
    worker: Role | None = None


class TFRoles(SpecModel):
    chief: Role | None = None
    worker: Role | None = None
    ps: Role | None = None
    evaluator: Role | None = None


class RunPolicy(SpecModel):
    clean_pod_policy: CleanPodPolicy | None = None
    backoff_limit: Int32 | None = None
    active_deadline_seconds: PositiveSeconds | None = None


class JobSpecBase(SpecModel):
    name: DnsName
    description: str | None = None
    labels: dict[LabelKey, LabelValue] = {}
    annotations: dict[LabelKey, str] = {}
    image: Image
    image_pull_policy: Literal["Always", "IfNotPresent", "Never"] | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    env: list[EnvVar] = []
    resources: Resources = Resources()
    volumes: list[Volume] = []
    node_selector: dict[LabelKey, LabelValue] = {}
    tolerations: list[Toleration] = []
    run_policy: RunPolicy = RunPolicy()


class PyTorchJobSpec(JobSpecBase):
    """A PyTorchJob: `master` (exactly 1) and `worker` roles."""

    framework: Literal["pytorch"]
    roles: PyTorchRoles
    nproc_per_node: NprocPerNode | None = None


class TFJobSpec(JobSpecBase):
    """A TFJob: `chief` (at most 1), `worker`, `ps` and `evaluator` roles."""

    framework: Literal["tensorflow"]
    roles: TFRoles


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
