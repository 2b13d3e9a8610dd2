"""What goes into every pod: env, resources, placement."""

from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, Field

from kgen.spec.base import OneOf, SpecModel
from kgen.spec.fields import (
    EnvName,
    GpuResource,
    Int64,
    LabelKey,
    LabelValue,
    ObjectName,
    Quantity,
)

# Free-form Kubernetes objects (affinity, securityContext, metrics) are checked against
# the core definitions by kgen.check.core, so their errors point at the spec line too.
KubeObject = dict[str, Any]


class KeyRef(SpecModel):
    """A key of a Secret or ConfigMap; kgen renders the reference, never the value."""

    name: ObjectName = Field(description="The Secret or ConfigMap.", examples=["wandb"])
    key: str = Field(min_length=1, description="The key in it.", examples=["api-key"])
    optional: bool | None = Field(
        None, description="Start the pod even if the key is missing.", examples=[True]
    )


class FieldRef(SpecModel):
    """A field of the pod itself (the downward API)."""

    field_path: str = Field(
        min_length=1, description="The pod field.", examples=["metadata.name"]
    )


class EnvVar(OneOf):
    """An environment variable: a literal `value`, or a reference to where it comes from."""

    _sources: ClassVar[tuple[str, ...]] = (
        "value",
        "secret_key_ref",
        "config_map_key_ref",
        "field_ref",
    )
    _what: ClassVar[str] = "an environment variable"

    name: EnvName = Field(description="Variable name.", examples=["LOG_LEVEL"])
    value: str | None = Field(
        None,
        description="A literal value (quote numbers and booleans).",
        examples=["info"],
    )
    secret_key_ref: KeyRef | None = Field(
        None,
        description="Take the value from a Secret.",
        examples=[{"name": "wandb", "key": "api-key"}],
    )
    config_map_key_ref: KeyRef | None = Field(
        None,
        description="Take the value from a ConfigMap.",
        examples=[{"name": "settings", "key": "mode"}],
    )
    field_ref: FieldRef | None = Field(
        None,
        description="Take the value from the pod.",
        examples=[{"fieldPath": "metadata.name"}],
    )


class EnvFrom(OneOf):
    """Every key of a ConfigMap or Secret as environment variables."""

    _sources: ClassVar[tuple[str, ...]] = ("config_map", "secret")
    _what: ClassVar[str] = "an envFrom entry"

    config_map: ObjectName | None = Field(
        None, description="A ConfigMap.", examples=["tf-settings"]
    )
    secret: ObjectName | None = Field(
        None, description="A Secret.", examples=["feature-store"]
    )
    prefix: str | None = Field(
        None, description="Prepended to every variable name.", examples=["FS_"]
    )


class ResourceAmounts(SpecModel):
    """Kubernetes quantities per resource; extended resources by name (`rdma/hca: 1`),
    which kgen.rules.spec checks are names of extended resources."""

    # Extended resources are any domain-prefixed name a device plugin registers, so
    # they cannot be fields; the keys are checked as names by a rule, at their line.
    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Quantity] = Field(init=False)

    cpu: Quantity | None = Field(None, description="CPU cores.", examples=["500m"])
    memory: Quantity | None = Field(None, description="Memory.", examples=["8Gi"])
    ephemeral_storage: Quantity | None = Field(
        None,
        alias="ephemeral-storage",
        description="Local scratch disk.",
        examples=["50Gi"],
    )


class Resources(SpecModel):
    """Per-pod resources. GPUs are a count of `gpuResource` and go into limits."""

    requests: ResourceAmounts = Field(
        ResourceAmounts.model_construct(),
        description="What the scheduler reserves.",
        examples=[{"cpu": "2", "memory": "8Gi"}],
    )
    limits: ResourceAmounts = Field(
        ResourceAmounts.model_construct(),
        description="The most a pod may use; requests must not exceed it.",
        examples=[{"cpu": "4", "memory": "8Gi"}],
    )
    gpu: int = Field(
        0,
        ge=0,
        le=64,
        description="GPUs per pod (a parameter server gets none unless its role asks).",
        examples=[1],
    )
    gpu_resource: GpuResource = Field(
        "nvidia.com/gpu",
        description="The GPU's extended resource name.",
        examples=["amd.com/gpu"],
    )


class ResourceOverrides(SpecModel):
    """A role's resources: each resource set here replaces the job-wide one."""

    requests: ResourceAmounts | None = Field(
        None,
        description="Replaces these requests for the role.",
        examples=[{"memory": "64Gi"}],
    )
    limits: ResourceAmounts | None = Field(
        None,
        description="Replaces these limits for the role.",
        examples=[{"memory": "64Gi"}],
    )
    gpu: int | None = Field(
        None, ge=0, le=64, description="GPUs per pod of this role.", examples=[0]
    )


class Toleration(SpecModel):
    """Let pods run on nodes with a matching taint."""

    key: LabelKey | None = Field(
        None,
        description="The taint's key; none matches every taint.",
        examples=["nvidia.com/gpu"],
    )
    operator: Literal["Exists", "Equal"] | None = Field(
        None, description="How `value` is compared.", examples=["Exists"]
    )
    value: LabelValue | None = Field(
        None, description="The taint's value, with `Equal`.", examples=["a100"]
    )
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = Field(
        None, description="The taint effect to tolerate.", examples=["NoSchedule"]
    )
    toleration_seconds: Int64 | None = Field(
        None, description="How long a NoExecute taint is tolerated.", examples=[300]
    )
