"""The PyTorchJob spec: `master` (exactly 1) and `worker` roles, torchrun's processes per
pod, and elastic training."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field, WithJsonSchema

from kgen.kinds.pytorch import KIND, MASTER, WORKER
from kgen.spec.base import SpecModel
from kgen.spec.fields import AtMost, Count, Int32
from kgen.spec.job import JobSpec, Role, framework_field, role_field
from kgen.spec.pod import KubeObject

_INT32_MAX = 2**31 - 1


def _nproc(value: Any) -> Any:
    # ASCII digits only: str.isdigit() also takes '٣' (read as 3) and '²' (which
    # int() refuses), and leading zeros are one number written two ways. Past 4,300
    # digits int() refuses it with Python's words: past 20, no count fits anyway.
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value) if len(value.lstrip("0")) <= 20 else _INT32_MAX + 1
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise ValueError("nprocPerNode must be at least 1")
        if value > _INT32_MAX:
            raise ValueError(f"nprocPerNode must be at most {_INT32_MAX}")
        return str(value)
    if isinstance(value, str) and value in ("auto", "cpu", "gpu"):
        return value
    raise ValueError(
        "nprocPerNode must be auto, cpu, gpu or a whole number of processes"
    )


_NPROC_SCHEMA = {
    "anyOf": [
        {"enum": ["auto", "cpu", "gpu"]},
        {"type": "string", "pattern": "^[1-9][0-9]*$"},
        {"type": "integer", "minimum": 1},
    ]
}
NprocPerNode = Annotated[str, BeforeValidator(_nproc), WithJsonSchema(_NPROC_SCHEMA)]


class RdzvConf(SpecModel):
    """One torchrun rendezvous option."""

    key: str = Field(min_length=1, description="Option name.", examples=["timeout"])
    value: str = Field(description="Option value.", examples=["900"])


class ElasticPolicy(SpecModel):
    """Elastic PyTorch (torchrun rendezvous): training-operator 1.4 and later (targets
    v1 and training-operator-1.4 to 1.9); v1-legacy and the beta targets have none."""

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


class PyTorchRoles(SpecModel):
    """PyTorchJob roles."""

    master: Role | None = role_field(MASTER)
    worker: Role | None = role_field(WORKER)


class PyTorchJobSpec(JobSpec):
    """A PyTorchJob: `master` (exactly 1) and `worker` roles."""

    framework: Literal["pytorch"] = framework_field(KIND)
    roles: PyTorchRoles = Field(
        description="Replica types and their pod counts.",
        examples=[{"master": {"replicas": 1}, "worker": {"replicas": 3}}],
    )
    nproc_per_node: NprocPerNode | None = Field(
        None,
        description="Processes per pod: `auto`, `cpu`, `gpu` or a number. Default: the GPU count, else 1 (never torchrun's `auto` on CPU).",
        examples=["4"],
    )
    elastic_policy: ElasticPolicy | None = Field(
        None,
        description="Elastic training (see below); allows worker-only jobs.",
        examples=[{"minReplicas": 2, "maxReplicas": 8}],
    )


MODEL = PyTorchJobSpec
ROLES = PyTorchRoles
# This kind's own sections of the spec reference, after the run policy's.
REFERENCE: list[tuple[str, type[BaseModel]]] = [
    ("elasticPolicy", ElasticPolicy),
    ("elasticPolicy.rdzvConf[]", RdzvConf),
]
TYPE_NAMES: dict[Any, str] = {NprocPerNode: "`auto` \\| `cpu` \\| `gpu` \\| number"}


def own(spec: JobSpec) -> PyTorchJobSpec:
    """`spec` as the PyTorchJob spec the registry picked it for."""
    assert isinstance(spec, PyTorchJobSpec)
    return spec


def scale_limit(spec: JobSpec) -> int | None:
    """Elastic workers scale up to maxReplicas (0: unset, as many as they start with)."""
    policy = own(spec).elastic_policy
    return None if policy is None else policy.max_replicas or 0
