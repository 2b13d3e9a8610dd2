"""What goes into every pod: env, resources, placement."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kgen.fields import EnvName, GpuResource, LabelKey, LabelValue, ObjectName, Quantity
from kgen.models.base import OneOf, SpecModel

# Free-form Kubernetes objects (affinity, securityContext, metrics) are checked against
# the core definitions by kgen.k8s_schema, so their errors point at the spec line too.
KubeObject = dict[str, Any]


class KeyRef(SpecModel):
    """A key of a Secret or ConfigMap; kgen renders the reference, never the value."""

    name: ObjectName
    key: str = Field(min_length=1)
    optional: bool | None = None


class FieldRef(SpecModel):
    field_path: str = Field(min_length=1)


class EnvVar(OneOf):
    """An environment variable: a literal `value`, or a reference to where it comes from."""

    _sources = ("value", "secret_key_ref", "config_map_key_ref", "field_ref")
    _what = "an environment variable"

    name: EnvName
    value: str | None = None
    secret_key_ref: KeyRef | None = None
    config_map_key_ref: KeyRef | None = None
    field_ref: FieldRef | None = None


class EnvFrom(OneOf):
    """Every key of a ConfigMap or Secret as environment variables."""

    _sources = ("config_map", "secret")
    _what = "an envFrom entry"

    config_map: ObjectName | None = None
    secret: ObjectName | None = None
    prefix: str | None = None


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


class ResourceOverrides(SpecModel):
    """A role's resources: each key set here replaces the job-wide one."""

    requests: ResourceAmounts | None = None
    limits: ResourceAmounts | None = None
    gpu: int | None = Field(None, ge=0, le=64)


class Toleration(SpecModel):
    key: LabelKey | None = None
    operator: Literal["Exists", "Equal"] | None = None
    value: LabelValue | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = None
    toleration_seconds: int | None = None
