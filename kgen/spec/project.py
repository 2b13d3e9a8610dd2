"""The project file `kgen.yaml` and the overlay files it names, as pydantic models."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field

from kgen.check.core import DEFAULT_KUBERNETES_VERSION, check_version
from kgen.kinds.targets import TARGETS
from kgen.spec.base import Framework, SpecModel
from kgen.spec.fields import (
    MAX_ENVIRONMENTS,
    MAX_OVERLAYS,
    DnsLabel,
    ObjectName,
    at_most,
    checked,
)
from kgen.spec.lint import LintSettings

PROJECT_FILE = "kgen.yaml"
# An overlay's `target:`, one of the API targets (kgen.kinds.targets).
if TYPE_CHECKING:
    TargetName = str
else:
    TargetName = Literal[tuple(TARGETS)]


# A path kgen.yaml names is opened as given: NAME_MAX and a bound well under PATH_MAX
# keep the OS from refusing it later (ENAMETOOLONG), where it would not be located.
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 1024
# kgen's index lists `<output>/<env>/<file>` in this alphabet (kgen.output.index_grammar),
# and the output root's name with spaces inside it too; an output root that starts a
# line another way ('#out' reads as a comment) would disown kgen's own files.
_OUTPUT_PART = re.compile(r"[A-Za-z0-9_.](?:[A-Za-z0-9._ -]*[A-Za-z0-9._-])?")


def _relative_dir(value: str) -> str | None:
    """A path inside the project: relative, no '..', printable, of a length the OS
    takes."""
    if not value.isprintable():
        return f"'{value}' has a control character; name a plain path in the project"
    parts = value.split("/")
    if value.startswith("/") or ".." in parts or "\\" in value or not value.strip("./"):
        return f"'{value}' must be a folder inside the project, without '..'"
    return _too_long(value)


def _too_long(value: str) -> str | None:
    size = len(value.encode())
    longest = max(len(part.encode()) for part in value.split("/"))
    if size > MAX_PATH_BYTES or longest > MAX_NAME_BYTES:
        return (
            f"the path is {size:,} bytes long; kgen takes paths of at most"
            f" {MAX_PATH_BYTES:,} bytes, and names of at most {MAX_NAME_BYTES} bytes"
            " between the '/'s"
        )
    return None


def _overlay_name(value: str) -> str | None:
    if not value.isprintable():
        return f"'{value}' has a control character; name an overlay file"
    if "/" in value or "\\" in value or value.startswith(".") or not value:
        return f"'{value}' is not an overlay name: name a file in the overlays folder without '.yaml'"
    if len(value.encode()) > MAX_NAME_BYTES - len(".yaml"):
        return (
            f"the overlay name is {len(value.encode()):,} bytes long; with '.yaml' it"
            f" must name a file of at most {MAX_NAME_BYTES} bytes"
        )
    return None


def _output_dir(value: str) -> str:
    """The output root as one spelling: the index lists `<output>/<env>/<file>` and
    accepts only normalised paths, so `./manifests/` must become `manifests`."""
    normal = posixpath.normpath(value)
    if not all(_OUTPUT_PART.fullmatch(part) for part in normal.split("/")):
        raise ValueError(
            f"'{value}' cannot be the output folder: its names may hold only ASCII"
            " letters, digits, '.', '_', '-' and spaces within, and not start with '-'"
            " (kgen's index lists its files in that alphabet)"
        )
    return normal


RelativeDir = Annotated[str, checked(_relative_dir)]
OutputDir = Annotated[RelativeDir, AfterValidator(_output_dir)]
KubernetesVersion = Annotated[str, checked(check_version)]
OverlayName = Annotated[str, checked(_overlay_name)]


class JobSelector(SpecModel):
    """Which jobs to select; every criterion given must match."""

    names: list[str] | None = Field(
        None, description="Job names; globs allowed.", examples=[["mnist-*"]]
    )
    frameworks: list[Framework] | None = Field(
        None, description="Frameworks.", examples=[["pytorch"]]
    )
    labels: dict[str, str] | None = Field(
        None,
        description="Job labels that must all be equal.",
        examples=[{"accelerator": "gpu"}],
    )


class OverlaySpec(SpecModel):
    """An overlay file: optional scope, optional API target, and a partial job spec."""

    description: str | None = Field(
        None, description="What the overlay is for.", examples=["GPU node pool"]
    )
    match: JobSelector | None = Field(
        None,
        description="Apply only to these jobs (all by default).",
        examples=[{"labels": {"accelerator": "gpu"}}],
    )
    target: TargetName | None = Field(
        None,
        description="Kubeflow API target; the last overlay that sets one wins (default v1).",
        examples=["v1beta2"],
    )
    patch: dict[str, Any] | None = Field(
        None,
        description="A partial job spec merged into each matching job; `key: null` deletes.",
        examples=[{"resources": {"gpu": 1}}],
    )


def _environment_shorthand(value: Any) -> Any:
    # `dev-cpu: [cpu, v1]` is short for `dev-cpu: {overlays: [cpu, v1]}`.
    return {"overlays": value} if isinstance(value, list) else value


class EnvironmentSpec(SpecModel):
    """One environment: `dev-cpu: [cpu, v1]` is short for `dev-cpu: {overlays: [cpu, v1]}`."""

    overlays: Annotated[
        list[OverlayName], at_most(MAX_OVERLAYS, "applied in order to every job")
    ] = Field(
        default_factory=list,
        description="Overlay files, in order; later ones win.",
        examples=[["gpu", "prod", "v1"]],
    )
    namespace: DnsLabel | None = Field(
        None, description="metadata.namespace of every object.", examples=["ml-prod"]
    )
    jobs: JobSelector | None = Field(
        None,
        description="Render only these jobs (all by default), e.g. what an old operator can run.",
        examples=[{"names": ["tf-*"]}],
    )
    gpu_quota: int | None = Field(
        None,
        ge=0,
        description="Most GPUs the environment's jobs may ask for together (elastic jobs at their maximum); `kgen validate` enforces it.",
        examples=[16],
    )


class GpuPlacement(SpecModel):
    """How this project's GPU pods reach GPU nodes: a GPU pod must use one of these."""

    node_selector_keys: list[str] = Field(
        default_factory=list,
        description="Node selector keys that pick GPU nodes.",
        examples=[["cloud.google.com/gke-accelerator"]],
    )
    toleration_keys: list[str] = Field(
        default_factory=list,
        description="Taint keys GPU nodes carry.",
        examples=[["nvidia.com/gpu"]],
    )


def _argocd_text(value: str) -> str | None:
    # Written into argocd/ and committed: no credentials (Argo CD reads those from a
    # repository Secret) and nothing that is not printable text.
    from kgen.rules.credentials import leaks

    if not value.isprintable():
        return f"'{value}' has control characters; it is written into argocd/"
    if leaks(value):
        return (
            f"'{value}' carries credentials, which would be committed in argocd/;"
            " give Argo CD a repository Secret instead"
        )
    return None


ArgoCDText = Annotated[str, checked(_argocd_text)]


class ArgoCDSettings(SpecModel):
    """What `kgen argocd` writes: where Argo CD finds this repository."""

    repo_url: ArgoCDText = Field(
        alias="repoURL",
        min_length=1,
        description="This repository's URL, as Argo CD reaches it.",
        examples=["https://github.com/example-org/ml-gitops.git"],
    )
    target_revision: ArgoCDText = Field(
        "HEAD", description="Branch, tag or commit to sync.", examples=["main"]
    )
    project: ArgoCDText = Field(
        "default", description="Argo CD project.", examples=["ml"]
    )
    namespace: ArgoCDText = Field(
        "argocd",
        description="Namespace of Argo CD and its Applications.",
        examples=["argocd"],
    )
    server: ArgoCDText = Field(
        "https://kubernetes.default.svc",
        description="Destination cluster.",
        examples=["https://kubernetes.default.svc"],
    )
    name_prefix: ArgoCDText = Field(
        "", description="Prefix of Application names.", examples=["training-"]
    )
    mode: Literal["applications", "applicationset"] = Field(
        "applications",
        description="An Application per environment, or one ApplicationSet.",
        examples=["applicationset"],
    )
    output: RelativeDir = Field(
        "argocd", description="Folder `kgen argocd` writes.", examples=["deploy/argocd"]
    )


class ProjectSpec(SpecModel):
    """`kgen.yaml`: where things are, and the environments to render."""

    jobs: RelativeDir = Field(
        "jobs", description="Folder of job specs.", examples=["training/jobs"]
    )
    overlays: RelativeDir = Field(
        "overlays", description="Folder of overlays.", examples=["training/overlays"]
    )
    output: OutputDir = Field(
        "manifests", description="Output root; kgen owns it.", examples=["deploy"]
    )
    environments: Annotated[
        dict[
            DnsLabel,
            Annotated[EnvironmentSpec, BeforeValidator(_environment_shorthand)],
        ],
        at_most(MAX_ENVIRONMENTS, "as each renders every job"),
    ] = Field(
        min_length=1,
        description="Environments to render, by name (the output folder).",
        examples=[{"dev-cpu": ["cpu", "v1"]}],
    )
    job_names: Literal["plain", "content-hash"] = Field(
        "plain",
        description="`content-hash` appends a hash of each rendered job to its name, so a changed spec becomes a new job (the operator never re-runs a finished one).",
        examples=["content-hash"],
    )
    kubernetes_version: KubernetesVersion = Field(
        DEFAULT_KUBERNETES_VERSION,
        description="Kubernetes minor the core objects are validated against.",
        examples=["1.31"],
    )
    external_claims: list[ObjectName] = Field(
        default_factory=list,
        description="Claims that exist outside kgen (jobs may mount them without `create`).",
        examples=[["imagenet"]],
    )
    gpu_placement: GpuPlacement | None = Field(
        None,
        description="Enables the gpu-placement rule.",
        examples=[{"tolerationKeys": ["nvidia.com/gpu"]}],
    )
    crds: list[RelativeDir] = Field(
        default_factory=list,
        description="CRD files of your cluster's operator; rendered jobs are checked against them too.",
        examples=[["crds/pytorchjobs-v1.9.yaml"]],
    )
    argocd: ArgoCDSettings | None = Field(
        None,
        description="Settings for `kgen argocd`.",
        examples=[{"repoURL": "https://github.com/example-org/ml-gitops.git"}],
    )
    lint: LintSettings = Field(
        LintSettings(),
        description="Silence policy rules project-wide, with reasons.",
        examples=[{"ignore": {"image-latest": "dev images float"}}],
    )
