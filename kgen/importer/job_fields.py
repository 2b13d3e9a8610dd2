"""The job-wide fields of a spec, read off a job object: its name and the run id kgen
appended to it, the pod settings every role shares (job-wide) and each role's own, and
its run policy without what the operator would default anyway."""

from __future__ import annotations

import re
from typing import Any

from kgen.importer.pods import PodReader
from kgen.kinds.base import Kind
from kgen.kinds.targets import RUN_FIELDS, TARGETS
from kgen.render.job import JOB_LABEL
from kgen.spec.job import RUN_ID_LENGTH, RUN_ID_PATTERN

RUN_ID = re.compile(RUN_ID_PATTERN)


def run_name(meta: dict[str, Any]) -> dict[str, str]:
    """The job's name, and the run id kgen appended to it (`<name>-<runId>`, the
    name in the `kgen.io/job` label): its TensorBoard and claims go by the name."""
    name = meta["name"]
    job = (meta.get("labels") or {}).get(JOB_LABEL)
    if isinstance(job, str) and RUN_ID.fullmatch(job) and name.startswith(f"{job}-"):
        run_id = name[len(job) + 1 :]
        if len(run_id) <= RUN_ID_LENGTH and RUN_ID.fullmatch(run_id):
            return {"name": job, "runId": run_id}
    return {"name": name}


def common(pods: list[dict[str, Any]]) -> dict[str, Any]:
    """What every role's pod shares: it becomes job-wide."""
    if not pods:
        return {}
    return {k: v for k, v in pods[0].items() if all(p.get(k) == v for p in pods[1:])}


# The settings a role of a job spec may set apart from the job's.
_PER_ROLE = ("image", "command", "args", "env", "resources", "nodeSelector", "tolerations", "affinity",
             "podLabels", "podAnnotations", "securityContext", "podSecurityContext", "sharedMemory",
             "containers", "initContainers", "ports", "livenessProbe", "readinessProbe", "startupProbe")  # fmt: skip


def role_overrides(shared: dict[str, Any], pod: dict[str, Any]) -> dict[str, Any]:
    """What a role's pod sets apart from what every role shares."""
    return {k: v for k, v in pod.items() if k in _PER_ROLE and shared.get(k) != v}


def run_policy(
    reader: PodReader,
    spec: dict[str, Any],
    target: str,
    kind: Kind,
    roles: dict[str, Any],
) -> dict[str, Any]:
    """The job's run policy, where the target's layout keeps it, less a cleanPodPolicy
    the operator would default to anyway; a suspended job is reported."""
    layout = TARGETS[target].run_fields_at if target in TARGETS else "spec"
    source = (spec.get("runPolicy") or {}) if layout == "runPolicy" else spec
    policy = {k: source[k] for k in RUN_FIELDS if k in source}
    policy.setdefault("cleanPodPolicy", kind.operator_clean_pod_policy(target))
    present = [role.name for role in kind.roles if role.key in roles]
    if policy.get("cleanPodPolicy") == kind.default_clean_pod_policy(target, present):
        del policy["cleanPodPolicy"]
    if "ttlSecondsAfterFinished" in policy:
        policy["ttlAcknowledged"] = True
    if source.get("suspend"):
        reader.unsupported(
            ("spec", "runPolicy", "suspend"), "a suspended job (suspend: true)"
        )
    return {"runPolicy": policy} if policy else {}
