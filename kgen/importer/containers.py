"""`kgen import`, the rest of a pod as teams write it (issue 18): sidecars, init
containers, the trainer's own ports, probes and lifecycle, and the pod's own fields,
which a job spec now holds as the core objects they are."""

from __future__ import annotations

from typing import Any

from kgen.spec.storage import SOURCE_DEFINITIONS

# The trainer's fields that are core objects, kept as written.
CONTAINER_OBJECTS = ("livenessProbe", "readinessProbe", "startupProbe", "lifecycle")
# The pod's fields a spec holds by the same name.
POD_OBJECTS = (
    "runtimeClassName",
    "dnsConfig",
    "hostAliases",
    "topologySpreadConstraints",
    "terminationGracePeriodSeconds",
)
# Volume sources a spec holds as core objects, by the pod's key.
CORE_SOURCES = {key: key for key, _definition in SOURCE_DEFINITIONS.values()}


def trainer_extras(
    main: dict[str, Any], *, port_name: str, port: int
) -> dict[str, Any]:
    """The trainer's ports beside the operator's (a moved operator port included) and
    its probes and lifecycle."""
    out: dict[str, Any] = {}
    ports = [
        p
        for p in main.get("ports") or []
        if not (p.get("name") == port_name and p.get("containerPort") == port)
    ]
    if ports:
        out["ports"] = ports
    for key in CONTAINER_OBJECTS:
        if key in main:
            out[key] = main[key]
    return out


def pod_extras(pod: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {key: pod[key] for key in POD_OBJECTS if key in pod}
    if pod.get("hostPID"):
        out["hostPID"] = True
    policy = pod.get("dnsPolicy")
    derived = "ClusterFirstWithHostNet" if pod.get("hostNetwork") else None
    if policy is not None and policy != derived:
        out["dnsPolicy"] = policy
    return out


def sidecars(containers: list[dict[str, Any]], main: dict[str, Any]) -> dict[str, Any]:
    others = [c for c in containers if c is not main]
    return {"containers": others} if others else {}


def core_source(source: dict[str, Any]) -> dict[str, Any] | None:
    """A volume's core source in spec terms (`{"emptyDir": {...}}`), or None."""
    for key in CORE_SOURCES:
        if key in source:
            return {key: source[key]}
    return None
