"""The project file `kgen.yaml` and the overlay files it names, as pydantic models."""

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from kgen.check.core import DEFAULT_KUBERNETES_VERSION, check_version
from kgen.kinds.targets import TARGETS
from kgen.spec.base import Framework, SpecModel, new_list
from kgen.spec.env_policy import EnvironmentPolicy
from kgen.spec.fields import (
    MAX_ENVIRONMENTS,
    MAX_OVERLAYS,
    DnsLabel,
    ObjectName,
    at_most,
    checked,
)
from kgen.spec.folders import MAX_NAME_BYTES, OutputDir, RelativeDir
from kgen.spec.gitops import ArgoCDSettings, FluxSettings
from kgen.spec.lint import DEFAULT_LINT, LintSettings
from kgen.spec.patches import Patches

PROJECT_FILE = "kgen.yaml"
# An overlay's `target:`, one of the API targets (kgen.kinds.targets).
if TYPE_CHECKING:
    TargetName = str
else:
    TargetName = Literal[tuple(TARGETS)]


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
    patches: Patches = Field(
        default_factory=new_list,
        description="Changes to each matching job's rendered objects, after the job's own patches (docs/patches.md).",
        examples=[[{"merge": {"metadata": {"annotations": {"team": "vision"}}}}]],
    )


def _environment_shorthand(value: Any) -> Any:
    # `dev-cpu: [cpu, v1]` is short for `dev-cpu: {overlays: [cpu, v1]}`.
    return {"overlays": value} if isinstance(value, list) else value


class EnvironmentSpec(SpecModel):
    """One environment: `dev-cpu: [cpu, v1]` is short for `dev-cpu: {overlays: [cpu, v1]}`."""

    overlays: Annotated[
        list[OverlayName], at_most(MAX_OVERLAYS, "applied in order to every job")
    ] = Field(
        default_factory=new_list,
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
    policy: EnvironmentPolicy | None = Field(
        None,
        description="Rules forbidden here; replaces the project's `policy`.",
        examples=[{"podSecurity": "privileged"}],
    )


class GpuPlacement(SpecModel):
    """How this project's GPU pods reach GPU nodes: a GPU pod must use one of these."""

    node_selector_keys: list[str] = Field(
        default_factory=new_list,
        description="Node selector keys that pick GPU nodes.",
        examples=[["cloud.google.com/gke-accelerator"]],
    )
    toleration_keys: list[str] = Field(
        default_factory=new_list,
        description="Taint keys GPU nodes carry.",
        examples=[["nvidia.com/gpu"]],
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
        default_factory=new_list,
        description="Claims that exist outside kgen (jobs may mount them without `create`).",
        examples=[["imagenet"]],
    )
    gpu_placement: GpuPlacement | None = Field(
        None,
        description="Enables the gpu-placement rule.",
        examples=[{"tolerationKeys": ["nvidia.com/gpu"]}],
    )
    crds: list[RelativeDir] = Field(
        default_factory=new_list,
        description="CRD files of your cluster's operator; rendered jobs are checked against them too.",
        examples=[["crds/pytorchjobs-v1.9.yaml"]],
    )
    argocd: ArgoCDSettings | None = Field(
        None,
        description="Settings for `kgen argocd`.",
        examples=[{"repoURL": "https://github.com/example-org/ml-gitops.git"}],
    )
    flux: FluxSettings | None = Field(
        None,
        description="Settings for `kgen flux`; with it, created claims carry Flux's prune protection.",
        examples=[{"sourceRef": {"name": "ml-gitops"}}],
    )
    policy: EnvironmentPolicy | None = Field(
        None,
        description="Rules forbidden in every environment that sets no `policy` of its own: errors there, which no job or overlay can silence.",
        examples=[{"podSecurity": "baseline"}],
    )
    lint: LintSettings = Field(
        DEFAULT_LINT,
        description="Silence policy rules project-wide, with reasons.",
        examples=[{"ignore": {"image-latest": "dev images float"}}],
    )
