"""Which spec value produced a place in the rendered output, so an output error points
at the line that caused it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kgen.errors import DataPath, Problem
from kgen.kinds import kind_named
from kgen.kinds.base import Kind
from kgen.render.base import Manifest
from kgen.render.pod import CHECKOUT_CONTAINER
from kgen.spec.job import JobSpec, role_items

_RUN_FIELDS = {
    "cleanPodPolicy",
    "backoffLimit",
    "activeDeadlineSeconds",
    "ttlSecondsAfterFinished",
}
_CONTAINER_FIELDS = {
    "image": "image",
    "imagePullPolicy": "imagePullPolicy",
    "command": "command",
    "args": "args",
    "workingDir": "workingDir",
    "env": "env",
    "envFrom": "envFrom",
    "resources": "resources",
    "volumeMounts": "volumes",
    "securityContext": "securityContext",
    "ports": "ports",
    "livenessProbe": "livenessProbe",
    "readinessProbe": "readinessProbe",
    "startupProbe": "startupProbe",
    "lifecycle": "lifecycle",
}
_POD_FIELDS = {
    "affinity": "affinity",
    "nodeSelector": "nodeSelector",
    "tolerations": "tolerations",
    "volumes": "volumes",
    "securityContext": "podSecurityContext",
    "serviceAccountName": "serviceAccountName",
    "priorityClassName": "priorityClassName",
    "schedulerName": "schedulerName",
    "hostNetwork": "hostNetwork",
    "hostIPC": "hostIPC",
    "imagePullSecrets": "imagePullSecrets",
    "runtimeClassName": "runtimeClassName",
    "hostPID": "hostPID",
    "dnsPolicy": "dnsPolicy",
    "dnsConfig": "dnsConfig",
    "hostAliases": "hostAliases",
    "topologySpreadConstraints": "topologySpreadConstraints",
    "terminationGracePeriodSeconds": "terminationGracePeriodSeconds",
}


def patch_at(manifest: Manifest, out: DataPath, problem: Problem) -> Problem:
    """`problem` at the line of the patch that wrote `out`, if a patch did."""
    origin = manifest.patched.origin(out) if manifest.patched else None
    if origin is None:
        return problem
    return replace(
        problem.at(origin.file, origin.line, origin.column),
        hint="a patch wrote it; the cluster would reject or prune it",
    )


def trace(manifest: Manifest, out: DataPath, spec: JobSpec | None = None) -> DataPath:
    """The spec field that produced the output at `out` (its nearest known ancestor);
    with the `spec`, an init container's own field."""
    if manifest.spec_path:
        return manifest.spec_path
    kind = kind_named(manifest.kind)
    if kind is None:
        return ("tensorboard",)
    if out[:2] in (("metadata", "labels"), ("metadata", "annotations")):
        return (str(out[1]),)
    if len(out) < 2 or out[0] != "spec":
        return ()
    if not kind.replica_key:  # the kind maps its own output (TrainJob)
        return kind.spec_path(out[1:])
    field = str(out[1])
    if field == "runPolicy":
        return ("runPolicy", *out[2:])
    if field in _RUN_FIELDS:
        return ("runPolicy", field)
    if field == kind.replica_key:
        return _trace_role(kind, out[2:], manifest.body, spec)
    return (field, *out[2:])


def _trace_role(
    kind: Kind, out: DataPath, body: dict[str, Any], spec: JobSpec | None
) -> DataPath:
    if not out:
        return ("roles",)
    defined = kind.role_for_key(str(out[0]))
    role = defined.name if defined else str(out[0]).lower()
    rest = out[1:]
    if not rest or rest[0] in ("replicas", "restartPolicy"):
        return ("roles", role, *rest[:1])
    if rest[:2] == ("template", "metadata") and len(rest) > 2:
        return ("podLabels",) if rest[2] == "labels" else ("podAnnotations",)
    pod = rest[2:]
    if pod and pod[0] == "initContainers":
        replica = body["spec"][kind.replica_key][out[0]]
        containers = replica["template"]["spec"]["initContainers"]
        return _init_container(pod[1:], containers, spec, role)
    if pod and pod[0] == "containers" and len(pod) > 1 and pod[1] != 0:
        return ("containers",)  # a sidecar
    if pod and pod[0] == "containers" and len(pod) > 2 and pod[2] in _CONTAINER_FIELDS:
        name = _CONTAINER_FIELDS[str(pod[2])]
        return (name, *pod[3:]) if name in ("securityContext", "resources") else (name,)
    if pod and pod[0] in _POD_FIELDS:
        name = _POD_FIELDS[str(pod[0])]
        return (
            (name, *pod[1:]) if name in ("affinity", "podSecurityContext") else (name,)
        )
    return ("roles", role)


def _init_container(
    out: DataPath, containers: list[Any], spec: JobSpec | None, role: str
) -> DataPath:
    """An init container's field: the code checkout's is codeSync; another is found by
    its name, in the role's initContainers (which merge over the job's by name) if the
    role sets that field, else in the job's."""
    if not out or not isinstance(out[0], int):
        return ("initContainers",)
    name = containers[out[0]].get("name")
    if name == CHECKOUT_CONTAINER and (spec is None or spec.code_sync is not None):
        return ("codeSync",)
    if spec is None:
        return ("initContainers",)
    rest = out[1:]
    own = dict(role_items(spec)).get(role)
    places: list[tuple[DataPath, list[Any]]] = [
        (("roles", role, "initContainers"), (own.init_containers or []) if own else []),
        (("initContainers",), spec.init_containers),
    ]
    found: DataPath | None = None
    for path, written in places:
        for index, container in enumerate(written):
            if container.get("name") == name:
                if not rest or rest[0] in container:
                    return (*path, index, *rest)
                found = found or (*path, index)
    return found or ("initContainers",)
