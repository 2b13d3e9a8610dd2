"""Run policy and framework options, each placed by the renderer where its target keeps it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kgen.fields import Count, Int32, ObjectName, PositiveSeconds, Quantity
from kgen.models.base import SpecModel
from kgen.models.pod import KubeObject

RestartPolicy = Literal["Always", "OnFailure", "Never", "ExitCode"]
CleanPodPolicy = Literal["None", "Running", "All"]


class SchedulingPolicy(SpecModel):
    """Gang scheduling (Volcano, scheduler-plugins); kubeflow.org/v1 only."""

    min_available: Count | None = None
    queue: str | None = None
    priority_class: ObjectName | None = None
    min_resources: dict[str, Quantity] | None = None
    schedule_timeout_seconds: Int32 | None = None


class RunPolicy(SpecModel):
    clean_pod_policy: CleanPodPolicy | None = None
    backoff_limit: Int32 | None = None
    active_deadline_seconds: PositiveSeconds | None = None
    # The operator deletes the job object after this; under Argo CD self-heal it comes
    # back and trains again (kubeflow-api.md §8.2), so it needs `ttlAcknowledged: true`.
    ttl_seconds_after_finished: Int32 | None = None
    ttl_acknowledged: bool = False
    scheduling_policy: SchedulingPolicy | None = None


class RdzvConf(SpecModel):
    key: str = Field(min_length=1)
    value: str


class ElasticPolicy(SpecModel):
    """Elastic PyTorch (torchrun rendezvous); min and max default to the worker count."""

    min_replicas: Count | None = None
    max_replicas: Count | None = None
    rdzv_backend: Literal["c10d", "etcd", "etcd-v2"] = "c10d"
    rdzv_port: int | None = Field(None, ge=1, le=65535)
    rdzv_host: str | None = None
    rdzv_id: str | None = None
    rdzv_conf: list[RdzvConf] | None = None
    max_restarts: Int32 | None = None
    metrics: list[KubeObject] | None = None
