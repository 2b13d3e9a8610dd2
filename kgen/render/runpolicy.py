"""Run fields per API target, and the check that a target can express a field."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgen.errors import DataPath, Problem
from kgen.kinds.targets import ApiTarget
from kgen.spec.job import JobSpec, role_items
from kgen.spec.policy import RunPolicy

if TYPE_CHECKING:
    from kgen.kinds.base import Kind


def place_run_policy(
    spec_out: dict[str, Any], spec: JobSpec, kind: Kind, target: ApiTarget
) -> list[Problem]:
    """Write the run fields where `target` keeps them; report those it cannot express.

    cleanPodPolicy is always explicit: the spec's, or the kind's default for its roles
    on this target. Key order follows the operator's Go struct (common_types.go
    RunPolicy).
    """
    run_policy = spec.run_policy
    roles = [name for name, _ in role_items(spec)]
    clean = run_policy.clean_pod_policy or kind.default_clean_pod_policy(
        target.name, roles
    )
    fields: dict[str, Any] = {"cleanPodPolicy": clean}
    if run_policy.ttl_seconds_after_finished is not None:
        fields["ttlSecondsAfterFinished"] = run_policy.ttl_seconds_after_finished
    if run_policy.active_deadline_seconds is not None:
        fields["activeDeadlineSeconds"] = run_policy.active_deadline_seconds
    if run_policy.backoff_limit is not None:
        fields["backoffLimit"] = run_policy.backoff_limit
    if run_policy.scheduling_policy is not None:
        fields["schedulingPolicy"] = _scheduling(run_policy)
    problems = [
        cannot_express(("runPolicy", key), target)
        for key in fields
        if not supported(("runPolicy", key), target)
    ]
    kept = {
        key: value
        for key, value in fields.items()
        if supported(("runPolicy", key), target)
    }
    if target.run_fields_at == "runPolicy":
        # The CRD defaults suspend to false; emitting it keeps Argo CD in sync (§3.2).
        spec_out["runPolicy"] = {**kept, "suspend": False}
    else:
        spec_out.update(kept)
    return problems


def _scheduling(run_policy: RunPolicy) -> dict[str, Any]:
    policy = run_policy.scheduling_policy
    assert policy is not None
    out = policy.model_dump(by_alias=True, exclude_none=True)
    if "minResources" in out:
        out["minResources"] = dict(sorted(out["minResources"].items()))
    return out


_ALWAYS = {"runPolicy.cleanPodPolicy", "runPolicy.ttlSecondsAfterFinished"}


def supported(path: DataPath, target: ApiTarget) -> bool:
    dotted = ".".join(str(part) for part in path)
    return dotted in _ALWAYS or dotted in target.supports


def cannot_express(path: DataPath, target: ApiTarget) -> Problem:
    field = str(path[-1])
    return Problem(
        f"{field} cannot be expressed for API target {target.name} ({target.description})",
        "target-unsupported-field",
        path=path,
        at_key=True,
        hint=f"remove it for this environment in an overlay (`{field}: null`) or use a newer target",
    )
