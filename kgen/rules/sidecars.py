"""A sidecar written under `containers:` is a plain container of the pod: the pod stays
Running while it runs, after the trainer has exited, and the operator counts a replica
as done only when its pod has Succeeded. A log shipper or a mesh proxy never exits, so
the job never succeeds, its GPUs stay held and Argo CD shows it Progressing for ever
(kubeflow/trainer#1577, an Istio proxy).

Kubernetes' native sidecar, an init container with `restartPolicy: Always`, ends with
the pod (KEP-753: alpha in 1.28 behind the SidecarContainers feature gate, beta and on
by default from 1.29, stable in 1.33;
https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/). Whether a
container exits by itself cannot be read from its spec, so every plain sidecar is
reported once, and `lint.ignore` silences the rule for one that does.
"""

from __future__ import annotations

from collections.abc import Iterator

from kgen.errors import Problem
from kgen.rules.context import Rule, RuleContext
from kgen.rules.places import setting
from kgen.rules.reads import reads
from kgen.spec.job import JobSpec

CODE = "sidecar-blocks-completion"
# The first Kubernetes minor that runs native sidecars without a feature gate.
NATIVE_SIDECARS = (1, 29)
_ALPHA = (1, 28)
_NATIVE = "initContainers with `restartPolicy: Always`"


@reads("containers", "roles")
def _sidecars_block_completion(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    places = setting(spec, "containers")
    if not places:
        return
    hint = sidecar_hint(ctx.kubernetes_version)
    # A role's container of the same name merges over the job's: reported there, once.
    job_names = {_name(item) for item in spec.containers} - {None}
    for place in places:
        for index, item in enumerate(place.set["containers"]):
            name = _name(item)
            if place.path and name in job_names:
                continue
            what = f"sidecar '{name}'" if name is not None else "a sidecar"
            yield Problem(
                f"{what} runs beside the trainer: the pod does not finish"
                " while it runs, so the job cannot succeed until it exits",
                CODE,
                path=(*place.path, "containers", index),
                at_key=True,
                hint=hint,
            )


def _name(item: object) -> str | None:
    # Only a string names a container; anything else is the core check's to report.
    name = item.get("name") if isinstance(item, dict) else None
    return name if isinstance(name, str) else None


def sidecar_hint(version: str) -> str:
    """What to do instead, for the project's Kubernetes minor (kgen.yaml kubernetesVersion)."""
    minor = tuple(int(part) for part in version.split("."))
    if minor >= NATIVE_SIDECARS:
        # Rules see no target; the CRD of v1 (training-operator 1.7's) has
        # Kubernetes 1.27's pod template, which prunes the restartPolicy
        # (kgen.kinds.pod_schemas, docs/targets.md).
        return (
            f"write it under {_NATIVE} (a native sidecar: Kubernetes 1.29+, and a"
            " target whose CRD keeps it, training-operator-1.8 or later or"
            " mpi-operator, not v1), which ends with the pod, or make it exit when"
            " the trainer does"
        )
    if minor >= _ALPHA:
        return (
            f"make it exit when the trainer does: native sidecars ({_NATIVE}) are on"
            f" by default from Kubernetes 1.29; kgen.yaml kubernetesVersion {version}"
            " has them only behind the SidecarContainers feature gate"
        )
    return (
        f"make it exit when the trainer does: native sidecars ({_NATIVE}) need"
        f" Kubernetes 1.29, and kgen.yaml kubernetesVersion is {version}"
    )


SIDECAR_RULES: tuple[Rule, ...] = (_sidecars_block_completion,)
