"""kgen.yaml `argocd:` and `flux:`: where the GitOps controller finds this repository,
and what `kgen argocd` and `kgen flux` write."""

import re
from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import Field

from kgen.spec.base import SpecModel
from kgen.spec.fields import DnsLabel, ObjectName, checked
from kgen.spec.folders import OutputDir


def _committed(folder: str, controller: str) -> Callable[[str], str | None]:
    def check(value: str) -> str | None:
        # Written into argocd/ or flux/ and committed: no credentials (the controller
        # reads those from a repository Secret) and nothing that is not printable text.
        from kgen.rules.credentials import leaks

        if not value.isprintable():
            return f"'{value}' has control characters; it is written into {folder}"
        if leaks(value):
            return (
                f"'{value}' carries credentials, which would be committed in {folder};"
                f" give {controller} a repository Secret instead"
            )
        return None

    return check


def _server(value: str) -> str | None:
    # Argo CD matches destination.server against its cluster URLs (attack14 F25).
    if not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", value):
        return f"'{value}' is not a cluster URL (https://host[:port])"
    return _committed("argocd/", "Argo CD")(value)


def _duration(value: str) -> str | None:
    # metav1.Duration as Flux takes it: Go's time.ParseDuration units.
    if not re.fullmatch(r"([0-9]+(\.[0-9]+)?(ms|s|m|h))+", value):
        return f"'{value}' is not a duration (e.g. 10m, 1h30m)"
    if _past_int64(value):
        # time.ParseDuration refuses it, and so the API server the whole object.
        return f"'{value}' is longer than a Kubernetes duration may be (2562047h)"
    return None


# A time.Duration is an int64 of nanoseconds.
_MAX_NANOSECONDS = 2**63 - 1
_UNIT_NANOSECONDS = {"ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}
# Fraction digits kept: past the 20th they change nothing, and a long run of them
# would be more than Python turns into a number.
_DIGITS = 20
_PART = re.compile(r"([0-9]+)(?:\.([0-9]+))?(ms|s|m|h)")


def _past_int64(value: str) -> bool:
    """Whether `value` is past time.Duration's int64 of nanoseconds. Counted in whole
    numbers of 10^-20 ns, and stopped at the first part past it: in Fractions a
    mebibyte of 1ms took seconds."""
    total, limit, scale = 0, _MAX_NANOSECONDS * 10**_DIGITS, 10**_DIGITS
    for whole, fraction, unit in _PART.findall(value):
        if len(whole) > _DIGITS and len(whole.lstrip("0")) > _DIGITS:
            return True  # past any int64, whatever the unit
        part = int(whole.lstrip("0") or "0") * scale
        if fraction:
            part += int(fraction[:_DIGITS].ljust(_DIGITS, "0"))
        total += part * _UNIT_NANOSECONDS[unit]
        if total > limit:
            return True
    return False


CommittedText = Annotated[str, checked(_committed("argocd/", "Argo CD"))]
FluxText = Annotated[str, checked(_committed("flux/", "Flux"))]
Server = Annotated[str, checked(_server)]
Duration = Annotated[str, checked(_duration)]

_DESTINATIONS = (
    "Namespace to deploy an environment into when the environment sets no `namespace`"
    " itself (its objects then carry none); an environment with neither is an error."
)


class ArgoCDSettings(SpecModel):
    """What `kgen argocd` writes: where Argo CD finds this repository."""

    repo_url: CommittedText = Field(
        alias="repoURL",
        min_length=1,
        description="This repository's URL, as Argo CD reaches it.",
        examples=["https://github.com/example-org/ml-gitops.git"],
    )
    target_revision: CommittedText = Field(
        "HEAD", description="Branch, tag or commit to sync.", examples=["main"]
    )
    project: CommittedText = Field(
        "default", description="Argo CD project.", examples=["ml"]
    )
    namespace: DnsLabel = Field(
        "argocd",
        description="Namespace of Argo CD and its Applications.",
        examples=["argocd"],
    )
    server: Server = Field(
        "https://kubernetes.default.svc",
        description="Destination cluster.",
        examples=["https://kubernetes.default.svc"],
    )
    name_prefix: CommittedText = Field(
        "",
        description="Prefix of Application names (prefix + environment must be a valid object name).",
        examples=["training-"],
    )
    mode: Literal["applications", "applicationset"] = Field(
        "applications",
        description="An Application per environment, or one ApplicationSet.",
        examples=["applicationset"],
    )
    destination_namespaces: dict[DnsLabel, DnsLabel] = Field(
        default_factory=dict,
        description=_DESTINATIONS,
        examples=[{"kf06-cpu": "kubeflow"}],
    )
    destination_servers: dict[DnsLabel, Server] = Field(
        default_factory=dict,
        description="The cluster (its API server URL, as Argo CD knows it) of each environment on another cluster than `server`.",
        examples=[{"kf06-cpu": "https://kf06.example.internal:6443"}],
    )
    output: OutputDir = Field(
        "argocd",
        description="Folder `kgen argocd` owns (with an index, like the output folder).",
        examples=["deploy/argocd"],
    )


class SourceRef(SpecModel):
    """The Flux source that holds this repository."""

    kind: Literal["GitRepository", "OCIRepository", "Bucket"] = Field(
        "GitRepository",
        description="Kind of the Flux source.",
        examples=["GitRepository"],
    )
    name: ObjectName = Field(description="Its name.", examples=["ml-gitops"])
    namespace: DnsLabel | None = Field(
        None,
        description="Its namespace (default: the Kustomizations' own).",
        examples=["flux-system"],
    )


class FluxSettings(SpecModel):
    """What `kgen flux` writes: a Flux Kustomization per environment (Flux 2.5 or later,
    for healthCheckExprs)."""

    source_ref: SourceRef = Field(
        description="The Flux source of this repository.",
        examples=[{"name": "ml-gitops"}],
    )
    namespace: DnsLabel = Field(
        "flux-system",
        description="Namespace of the Kustomizations.",
        examples=["flux-system"],
    )
    name_prefix: FluxText = Field(
        "",
        description="Prefix of Kustomization names (prefix + environment must be a valid object name).",
        examples=["training-"],
    )
    interval: Duration = Field(
        "10m", description="How often Flux reconciles.", examples=["5m"]
    )
    timeout: Duration = Field(
        "15m",
        description="How long Flux waits for the environment's objects to be healthy.",
        examples=["30m"],
    )
    wait: bool = Field(
        True,
        description="Wait for every object to be healthy (training jobs: running or succeeded).",
        examples=[False],
    )
    target_namespaces: dict[DnsLabel, DnsLabel] = Field(
        default_factory=dict,
        description=_DESTINATIONS,
        examples=[{"kf06-cpu": "kubeflow"}],
    )
    kube_configs: dict[DnsLabel, ObjectName] = Field(
        default_factory=dict,
        description="The Secret (in the Kustomizations' namespace) holding the kubeconfig of each environment on another cluster than Flux's own (spec.kubeConfig.secretRef).",
        examples=[{"kf06-cpu": "kf06-kubeconfig"}],
    )
    output: OutputDir = Field(
        "flux",
        description="Folder `kgen flux` owns (with an index, like the output folder).",
        examples=["deploy/flux"],
    )
