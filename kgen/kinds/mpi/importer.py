"""What `kgen import` reads of an MPIJob beyond what every kind shares."""

from __future__ import annotations

from typing import Any

from kgen.errors import Problem
from kgen.kinds.mpi import KIND, V2
from kgen.kinds.mpi.render import V2_DEFAULTS, V2_LAUNCHER_RESTART

_V2_FIELDS = {key: default for key, _, default in V2_DEFAULTS}


def read_fields(
    spec: dict[str, Any], target: str, out: dict[str, Any], notes: list[Problem]
) -> dict[str, Any]:
    """slotsPerWorker as it is; mpi-operator's fields where they are not its defaults;
    and the launcher's restart policy, whose default differs on mpi-operator."""
    fields: dict[str, Any] = {}
    if spec.get("slotsPerWorker") is not None:
        fields["slotsPerWorker"] = spec["slotsPerWorker"]
    if target not in V2:
        return fields | _legacy_clean_pod_policy(spec, out)
    if spec.get("runLauncherAsWorker"):
        fields["runLauncherAsWorker"] = True
    for key, default in _V2_FIELDS.items():
        if spec.get(key) not in (None, "", default):
            fields[key] = spec[key]
    launcher = (spec.get("mpiReplicaSpecs") or {}).get("Launcher")
    roles = out.get("roles") or {}
    if isinstance(launcher, dict) and "launcher" in roles:
        policy = launcher.get("restartPolicy") or V2_LAUNCHER_RESTART
        entry = {k: v for k, v in roles["launcher"].items() if k != "restartPolicy"}
        if policy != V2_LAUNCHER_RESTART:
            entry = {
                "replicas": entry.pop("replicas"),
                "restartPolicy": policy,
                **entry,
            }
        fields["roles"] = {**roles, "launcher": entry}
    return fields


def _legacy_clean_pod_policy(
    spec: dict[str, Any], out: dict[str, Any]
) -> dict[str, Any]:
    """MPIJob v1's deprecated top-level cleanPodPolicy counts when runPolicy has none
    (training-operator@v1.9.4 mpijob_controller.go `Reconcile` syncs the two)."""
    legacy = spec.get("cleanPodPolicy")
    run = spec.get("runPolicy") or {}
    if legacy in (None, "") or run.get("cleanPodPolicy") not in (None, ""):
        return {}
    policy = dict(out.get("runPolicy") or {})
    policy.pop("cleanPodPolicy", None)
    if legacy != KIND.clean_pod_policy:
        policy = {"cleanPodPolicy": legacy, **policy}
    return {"runPolicy": policy} if policy else {}
