"""The PaddleJob spec: `worker` roles, and a `master` for parameter-server mode."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from kgen.kinds.paddle import KIND, MASTER, WORKER
from kgen.spec.base import SpecModel
from kgen.spec.job import JobSpec, Role, framework_field, role_field


class PaddleRoles(SpecModel):
    """PaddleJob roles."""

    master: Role | None = role_field(MASTER)
    worker: Role | None = role_field(WORKER)


class PaddleJobSpec(JobSpec):
    """A PaddleJob: `worker` roles, and a `master` for parameter-server mode."""

    framework: Literal["paddle"] = framework_field(KIND)
    roles: PaddleRoles = Field(
        description="Replica types and their pod counts.",
        examples=[{"worker": {"replicas": 2}}],
    )


MODEL = PaddleJobSpec
ROLES = PaddleRoles
REFERENCE: list[tuple[str, type[BaseModel]]] = []
TYPE_NAMES: dict[Any, str] = {}


def own(spec: JobSpec) -> PaddleJobSpec:
    """`spec` as the PaddleJob spec the registry picked it for."""
    assert isinstance(spec, PaddleJobSpec)
    return spec


def scale_limit(spec: JobSpec) -> int | None:
    """No PaddleJob role scales."""
    return None
