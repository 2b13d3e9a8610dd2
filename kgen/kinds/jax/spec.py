"""The JAXJob spec: `worker` roles only."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from kgen.kinds.jax import KIND, WORKER
from kgen.spec.base import SpecModel
from kgen.spec.job import JobSpec, Role, framework_field, role_field


class JAXRoles(SpecModel):
    """JAXJob roles."""

    worker: Role | None = role_field(WORKER)


class JAXJobSpec(JobSpec):
    """A JAXJob: `worker` roles; worker 0 coordinates."""

    framework: Literal["jax"] = framework_field(KIND)
    roles: JAXRoles = Field(
        description="Replica types and their pod counts.",
        examples=[{"worker": {"replicas": 2}}],
    )


MODEL = JAXJobSpec
ROLES = JAXRoles
REFERENCE: list[tuple[str, type[BaseModel]]] = []
TYPE_NAMES: dict[Any, str] = {}


def own(spec: JobSpec) -> JAXJobSpec:
    """`spec` as the JAXJob spec the registry picked it for."""
    assert isinstance(spec, JAXJobSpec)
    return spec


def scale_limit(spec: JobSpec) -> int | None:
    """Nothing scales a JAXJob's workers (the CRD's scale subresource is unused here)."""
    return None
