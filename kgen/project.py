"""The project file `kgen.yaml` and the overlay files it names, as pydantic models."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from kgen.fields import DnsLabel, checked
from kgen.models import Framework, SpecModel
from kgen.targets import TARGETS

PROJECT_FILE = "kgen.yaml"
TargetName = Literal["v1", "v1-legacy", "v1beta2", "v1beta1"]
assert set(TargetName.__args__) == set(TARGETS)  # type: ignore[attr-defined]


def _relative_dir(value: str) -> str | None:
    parts = value.split("/")
    if value.startswith("/") or ".." in parts or "\\" in value or not value.strip("./"):
        return f"'{value}' must be a folder inside the project, without '..'"
    return None


def _overlay_name(value: str) -> str | None:
    if "/" in value or "\\" in value or value.startswith(".") or not value:
        return f"'{value}' is not an overlay name: name a file in the overlays folder without '.yaml'"
    return None


RelativeDir = Annotated[str, checked(_relative_dir)]
OverlayName = Annotated[str, checked(_overlay_name)]


class JobSelector(SpecModel):
    """Which jobs an overlay applies to; every criterion given must match."""

    names: list[str] | None = None
    frameworks: list[Framework] | None = None
    labels: dict[str, str] | None = None


class OverlaySpec(SpecModel):
    """An overlay file: optional scope, optional API target, and a partial job spec."""

    description: str | None = None
    match: JobSelector | None = None
    target: TargetName | None = None
    patch: dict[str, Any] | None = None


def _environment_shorthand(value: Any) -> Any:
    # `dev-cpu: [cpu, v1]` is short for `dev-cpu: {overlays: [cpu, v1]}`.
    return {"overlays": value} if isinstance(value, list) else value


class EnvironmentSpec(SpecModel):
    overlays: list[OverlayName] = Field(default_factory=list)
    namespace: DnsLabel | None = None
    # Which jobs this environment renders (all unless given), e.g. only what an old
    # operator can run.
    jobs: JobSelector | None = None


class ProjectSpec(SpecModel):
    """`kgen.yaml`: where things are, and the environments to render."""

    jobs: RelativeDir = "jobs"
    overlays: RelativeDir = "overlays"
    output: RelativeDir = "manifests"
    environments: dict[
        DnsLabel, Annotated[EnvironmentSpec, BeforeValidator(_environment_shorthand)]
    ] = Field(min_length=1)
