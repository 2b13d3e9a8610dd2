"""The target a job object was written for: by its layout (kgen.kinds.targets), unless
its kind is not on that target, or its pod templates hold fields only a later release's
CRD keeps."""

from __future__ import annotations

from typing import Any

from kgen.kinds.base import Kind
from kgen.kinds.targets import (
    DEFAULT_TARGET,
    LATEST_RELEASE,
    TARGETS,
    target_of_manifest,
)


def kind_target(
    kind: Kind, api_version: str, spec: dict[str, Any], *, queued: bool
) -> str:
    """The target by layout, unless the kind is not on it: MPIJob v1 keeps its own
    top-level cleanPodPolicy beside runPolicy, which is no legacy layout."""
    target = target_of_manifest(api_version, spec, queued=queued)
    if target in TARGETS and target not in kind.targets:
        same = [t for t in TARGETS if t in kind.targets]
        same = [t for t in same if TARGETS[t].api_version == api_version]
        return same[0] if same else target
    if target == DEFAULT_TARGET and _newer_pods(kind, api_version, spec):
        # Written for a later release than the 1.7 line `v1` is: its CRD would prune
        # them (kgen.kinds.pod_schemas); the last release keeps the most.
        return LATEST_RELEASE if LATEST_RELEASE in kind.targets else target
    return target


def _newer_pods(kind: Kind, api_version: str, spec: dict[str, Any]) -> bool:
    """Whether the object's pod templates hold fields the pod template of `v1`'s CRD
    lacks but the Kubernetes kgen checks against by default has."""
    from kgen.check.core import DEFAULT_KUBERNETES_VERSION
    from kgen.check.output import fast_validator, job_validator, unknown_fields
    from kgen.kinds.targets import pod_schema_version

    body = {"apiVersion": api_version, "kind": kind.kind, "metadata": {}, "spec": spec}
    capped = pod_schema_version(DEFAULT_TARGET, DEFAULT_KUBERNETES_VERSION)
    fast = fast_validator(kind.kind, DEFAULT_TARGET, capped)
    if fast is None or fast.is_valid(body):
        return False
    old = job_validator(kind.kind, DEFAULT_TARGET, capped).iter_errors(body)
    new = job_validator(kind.kind, DEFAULT_TARGET, DEFAULT_KUBERNETES_VERSION)
    return bool(unknown_fields(old) - unknown_fields(new.iter_errors(body)))
