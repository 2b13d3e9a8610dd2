"""The TFJob spec: `chief` (at most 1), `worker`, `ps` and `evaluator` roles, and the
success policy."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from kgen.kinds.tensorflow import KIND
from kgen.spec.base import SpecModel
from kgen.spec.job import JobSpec, Role, framework_field, role_field


class TFRoles(SpecModel):
    """TFJob roles."""

    # A key another tool writes for one of these: the hint names it (kgen.spec.placed).
    renamed_keys: ClassVar[dict[str, str]] = {
        "master": "a TFJob's master is its chief: write chief (Master is the older"
        " name of Chief, which the operator treats the same)"
    }

    chief: Role | None = role_field(KIND.role("chief"))
    worker: Role | None = role_field(KIND.role("worker"))
    ps: Role | None = role_field(KIND.role("ps"))
    evaluator: Role | None = role_field(KIND.role("evaluator"))


class TFJobSpec(JobSpec):
    """A TFJob: `chief` (at most 1), `worker`, `ps` and `evaluator` roles."""

    framework: Literal["tensorflow"] = framework_field(KIND)
    roles: TFRoles = Field(
        description="Replica types and their pod counts.",
        examples=[{"ps": {"replicas": 2}, "worker": {"replicas": 4}}],
    )
    success_policy: Literal["AllWorkers"] | None = Field(
        None,
        description="Without a chief: succeed when all workers do (default: worker 0).",
        examples=["AllWorkers"],
    )
    enable_dynamic_worker: bool | None = Field(
        None,
        description="Sparse TF_CONFIG; worker failures do not fail the job.",
        examples=[True],
    )


MODEL = TFJobSpec
ROLES = TFRoles
REFERENCE: list[tuple[str, type[BaseModel]]] = []
TYPE_NAMES: dict[Any, str] = {}


def own(spec: JobSpec) -> TFJobSpec:
    """`spec` as the TFJob spec the registry picked it for."""
    assert isinstance(spec, TFJobSpec)
    return spec


def scale_limit(spec: JobSpec) -> int | None:
    """No TFJob role scales."""
    return None
