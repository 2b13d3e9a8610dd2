"""Run fields (cleanPodPolicy, backoffLimit, activeDeadlineSeconds) per API target."""

from __future__ import annotations

from typing import Any

from kgen.errors import Problem
from kgen.models import RunPolicy
from kgen.targets import ApiTarget


def place_run_policy(
    spec_out: dict[str, Any],
    run_policy: RunPolicy,
    *,
    clean_pod_policy: str,
    target: ApiTarget,
) -> list[Problem]:
    """Write the run fields where `target` keeps them; report those it cannot express."""
    fields: dict[str, Any] = {"cleanPodPolicy": clean_pod_policy}
    if run_policy.backoff_limit is not None:
        fields["backoffLimit"] = run_policy.backoff_limit
    if run_policy.active_deadline_seconds is not None:
        fields["activeDeadlineSeconds"] = run_policy.active_deadline_seconds
    problems = [
        cannot_express(("runPolicy", key), target)
        for key in fields
        if key not in target.run_fields
    ]
    kept = {key: value for key, value in fields.items() if key in target.run_fields}
    if target.run_fields_at == "runPolicy":
        # The CRD defaults suspend to false; emitting it keeps Argo CD in sync (§3.2).
        spec_out["runPolicy"] = {**kept, "suspend": False}
    else:
        spec_out.update(kept)
    return problems


def cannot_express(path: tuple[str, ...], target: ApiTarget) -> Problem:
    field = path[-1]
    return Problem(
        f"{field} cannot be expressed for API target {target.name} ({target.description})",
        "target-unsupported-field",
        path=path,
        hint=f"remove it for this environment in an overlay (`{field}: null`) or use a newer target",
    )
