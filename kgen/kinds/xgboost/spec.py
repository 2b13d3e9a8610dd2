"""The XGBoostJob spec: `master` (exactly 1) and `worker` roles."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from kgen.kinds.xgboost import KIND, MASTER, WORKER
from kgen.spec.base import SpecModel
from kgen.spec.job import JobSpec, Role, framework_field, role_field


class XGBoostRoles(SpecModel):
    """XGBoostJob roles."""

    master: Role | None = role_field(MASTER)
    worker: Role | None = role_field(WORKER)


class XGBoostJobSpec(JobSpec):
    """An XGBoostJob: `master` (exactly 1) and `worker` roles."""

    framework: Literal["xgboost"] = framework_field(KIND)
    roles: XGBoostRoles = Field(
        description="Replica types and their pod counts.",
        examples=[{"master": {"replicas": 1}, "worker": {"replicas": 2}}],
    )


MODEL = XGBoostJobSpec
ROLES = XGBoostRoles
REFERENCE: list[tuple[str, type[BaseModel]]] = []
TYPE_NAMES: dict[Any, str] = {}


def own(spec: JobSpec) -> XGBoostJobSpec:
    """`spec` as the XGBoostJob spec the registry picked it for."""
    assert isinstance(spec, XGBoostJobSpec)
    return spec


def scale_limit(spec: JobSpec) -> int | None:
    """No XGBoostJob role scales."""
    return None
