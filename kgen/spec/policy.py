"""Run policy and framework options, each placed by the renderer where its target keeps it."""

from typing import Annotated, Literal

from pydantic import Field

from kgen.spec.base import SpecModel
from kgen.spec.fields import AtMost, Count, Int32, ObjectName, PositiveSeconds, Quantity

RestartPolicy = Literal["Always", "OnFailure", "Never", "ExitCode"]
CleanPodPolicy = Literal["None", "Running", "All"]


class SchedulingPolicy(SpecModel):
    """Gang scheduling (Volcano, scheduler-plugins): training-operator 1.3 and later, and
    mpi-operator; v1-legacy and the beta targets have none."""

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
