"""Run fields per API target, and the check that a target can express a field."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgen.errors import DataPath, Problem
from kgen.kinds.targets import OPERATOR, ApiTarget, arrived_in
from kgen.render.kueue import queued
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
    problems = []
    if run_policy.scheduling_policy is not None:
        fields["schedulingPolicy"] = _scheduling(run_policy)
        problems += _scheduling_problems(fields["schedulingPolicy"], target)
    problems += [
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
        spec_out["runPolicy"] = {**kept, **_suspend(spec, target)}
    else:
        spec_out.update(kept)
    return problems


def _suspend(spec: JobSpec, target: ApiTarget) -> dict[str, bool]:
    """The CRD defaults suspend to false; emitting it keeps Argo CD in sync (§3.2).
    Before training-operator 1.7 the CRD has no suspend, and the API server would
    prune it: the job would be OutOfSync for good. A job Kueue admits gets none:
    Kueue holds the field, and Flux would set it back on every reconcile
    (kgen.render.kueue)."""
    if not target.has("runPolicy.suspend") or queued(spec):
        return {}
    return {"suspend": False}


def _scheduling(run_policy: RunPolicy) -> dict[str, Any]:
    policy = run_policy.scheduling_policy
    assert policy is not None
    out = policy.model_dump(by_alias=True, exclude_none=True)
    if "minResources" in out:
        out["minResources"] = dict(sorted(out["minResources"].items()))
    return out


_TIMEOUT = "scheduleTimeoutSeconds"


def _scheduling_problems(policy: dict[str, Any], target: ApiTarget) -> list[Problem]:
    """scheduleTimeoutSeconds arrived in training-operator 1.6; dropped where it did
    not exist yet, with the error that says so."""
    path = ("runPolicy", "schedulingPolicy", _TIMEOUT)
    if _TIMEOUT not in policy or target.run_fields_at != "runPolicy":
        return []
    if supported(path, target):
        return []
    del policy[_TIMEOUT]
    return [cannot_express(path, target)]


_ALWAYS = {"runPolicy.cleanPodPolicy", "runPolicy.ttlSecondsAfterFinished"}


def supported(path: DataPath, target: ApiTarget) -> bool:
    dotted = ".".join(str(part) for part in path)
    return dotted in _ALWAYS or dotted in target.supports


def cannot_express(path: DataPath, target: ApiTarget) -> Problem:
    """The field at `path` is not in `target`'s CRD: named with the release it arrived
    in, and the overlay patch that removes it (its full path)."""
    field = str(path[-1])
    since = arrived_in(".".join(str(part) for part in path))
    if target.release is not None and since is not None:
        message = f"{field} cannot be expressed for {target.release_name} (it arrived in {since})"
        newer = f"target {OPERATOR}-{since} or later"
    else:
        message = f"{field} cannot be expressed for {target.release_name}"
        newer = "a newer target"
    return Problem(
        message,
        "target-unsupported-field",
        path=path,
        at_key=True,
        hint=f"remove it for this environment in an overlay (`{overlay_patch(path)}`) or use {newer}",
    )


def overlay_patch(path: DataPath) -> str:
    """The flow-style overlay patch that deletes `path`: `runPolicy: {backoffLimit: null}`."""
    text = f"{path[-1]}: null"
    for part in reversed(path[:-1]):
        text = f"{part}: {{{text}}}"
    return text
