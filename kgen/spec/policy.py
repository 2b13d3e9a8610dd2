"""Run policy and framework options, each placed by the renderer where its target keeps it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from kgen.spec.base import SpecModel
from kgen.spec.fields import AtMost, Count, Int32, ObjectName, PositiveSeconds, Quantity
from kgen.spec.pod import KubeObject

RestartPolicy = Literal["Always", "OnFailure", "Never", "ExitCode"]
CleanPodPolicy = Literal["None", "Running", "All"]


class SchedulingPolicy(SpecModel):
    """Gang scheduling (Volcano, scheduler-plugins); kubeflow.org/v1 only."""

    min_available: Count | None = Field(
        None, description="Pods that must be schedulable together.", examples=[3]
    )
    queue: str | None = Field(
        None,
        description="The scheduler's queue (immutable once created).",
        examples=["training"],
    )
    priority_class: ObjectName | None = Field(
        None, description="PriorityClass of the pod group.", examples=["training-high"]
    )
    min_resources: Annotated[dict[str, Quantity], AtMost] | None = Field(
        None,
        description="Resources the whole group needs.",
        examples=[{"nvidia.com/gpu": "8"}],
    )
    schedule_timeout_seconds: Int32 | None = Field(
        None, description="Give up scheduling the group after this.", examples=[600]
    )


class RunPolicy(SpecModel):
    """How the operator runs and cleans up the job."""

    clean_pod_policy: CleanPodPolicy | None = Field(
        None,
        description="Pods deleted when the job ends. Default `None`; `Running` for TFJobs with parameter servers, whose PS pods never exit.",
        examples=["Running"],
    )
    backoff_limit: Int32 | None = Field(
        None, description="Restarts before the job fails.", examples=[3]
    )
    active_deadline_seconds: PositiveSeconds | None = Field(
        None, description="Fail the job after running this long.", examples=[86400]
    )
    # The operator deletes the job object after this; under Argo CD self-heal it comes
    # back and trains again (kubeflow-api.md §8.2), so it needs `ttlAcknowledged: true`.
    ttl_seconds_after_finished: Int32 | None = Field(
        None,
        description="The operator deletes the job object this long after it ends; with GitOps self-heal it is re-created and trains again.",
        examples=[86400],
    )
    ttl_acknowledged: bool = Field(
        False,
        description="Required with ttlSecondsAfterFinished: nothing re-applies this job.",
        examples=[True],
    )
    scheduling_policy: SchedulingPolicy | None = Field(
        None,
        description="Gang scheduling (see below).",
        examples=[{"minAvailable": 3, "queue": "training"}],
    )


class RdzvConf(SpecModel):
    """One torchrun rendezvous option."""

    key: str = Field(min_length=1, description="Option name.", examples=["timeout"])
    value: str = Field(description="Option value.", examples=["900"])


class ElasticPolicy(SpecModel):
    """Elastic PyTorch (torchrun rendezvous); training-operator 1.4+, target v1 only."""

    min_replicas: Count | None = Field(
        None, description="Fewest workers; defaults to the worker count.", examples=[2]
    )
    max_replicas: Count | None = Field(
        None, description="Most workers; defaults to the worker count.", examples=[8]
    )
    rdzv_backend: Literal["c10d", "etcd", "etcd-v2"] = Field(
        "c10d", description="torchrun's rendezvous backend.", examples=["c10d"]
    )
    rdzv_port: int | None = Field(
        None,
        ge=1,
        le=65535,
        description="Rendezvous port; the worker's port by default.",
        examples=[29400],
    )
    rdzv_host: str | None = Field(
        None,
        description="Rendezvous host; worker 0 by default.",
        examples=["etcd.ml.svc"],
    )
    rdzv_id: str | None = Field(
        None, description="Rendezvous id.", examples=["llm-run-7"]
    )
    rdzv_conf: Annotated[list[RdzvConf], AtMost] | None = Field(
        None,
        description="Extra rendezvous options.",
        examples=[[{"key": "timeout", "value": "900"}]],
    )
    max_restarts: Int32 | None = Field(
        None, description="torchrun's --max-restarts.", examples=[3]
    )
    metrics: Annotated[list[KubeObject], AtMost] | None = Field(
        None,
        description="autoscaling/v2 metrics; the operator scales workers with an HPA (Argo CD then sees the replica count change).",
        examples=[
            [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 80},
                    },
                }
            ]
        ],
    )
