"""Records shared by the renderers: the environment rendered for, and one manifest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from kgen.errors import DataPath
from kgen.kinds.targets import ApiTarget

if TYPE_CHECKING:
    from kgen.patch.marks import PatchMarks
    from kgen.spec.job import JobSpec

MANAGED_BY = {"app.kubernetes.io/managed-by": "kgen"}


class Environment(NamedTuple):
    """An environment as its renders see it. A NamedTuple: a frozen dataclass's methods
    were compiled from source at import."""

    name: str
    target: ApiTarget
    namespace: str | None = None
    # `content-hash` names each job `<name>-<hash of its rendered body>`.
    job_names: str = "plain"
    # kgen.yaml has `flux:`: created claims carry Flux's prune opt-out too.
    flux: bool = False
    # The rules its policy forbids, each with where it is set (kgen.rules.forbidden).
    forbidden: tuple[tuple[str, str], ...] = ()


class Manifest(NamedTuple):
    """One Kubernetes object as kgen will write it (a NamedTuple, as Environment)."""

    kind: str
    name: str
    body: dict[str, Any]
    # The spec field this object comes from, to point at when it conflicts.
    spec_path: DataPath = ()
    # The places `patches:` wrote, each with the patch value that wrote it (kgen.patch).
    patched: PatchMarks | None = None

    @property
    def filename(self) -> str:
        return f"{self.name}.{self.kind.lower()}.yaml"


def object_meta(
    name: str, env: Environment, *, labels: dict[str, str], annotations: dict[str, str]
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if env.namespace:
        meta["namespace"] = env.namespace
    meta["labels"] = dict(sorted({**labels, **MANAGED_BY}.items()))
    if annotations:
        meta["annotations"] = dict(sorted(annotations.items()))
    return meta


def job_manifest(
    kind: str,
    spec: JobSpec,
    env: Environment,
    body_spec: dict[str, Any],
    *,
    annotations: dict[str, str],
) -> Manifest:
    """A job object of `kind`: the target's apiVersion, the job's metadata with kgen's
    `annotations` beside the spec's, `body_spec`."""
    body = {
        "apiVersion": env.target.api_version,
        "kind": kind,
        "metadata": object_meta(
            spec.name,
            env,
            labels=spec.labels,
            annotations=annotations | spec.annotations,
        ),
        "spec": body_spec,
    }
    return Manifest(kind, spec.name, body)
