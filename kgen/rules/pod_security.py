"""What the baseline Pod Security Standard forbids of a pod, as far as kgen renders it:
hostPath volumes, the node's PID, IPC and network namespaces, privileged containers,
host ports and capabilities beyond the runtime's defaults.

Each is a policy rule: silenceable with a reason, per job or per environment through an
overlay's `lint.ignore`, unless the environment's policy forbids it
(kgen.rules.forbidden). The fields and allowed values are the Pod Security admission's:
kubernetes/kubernetes staging/src/k8s.io/pod-security-admission/policy/
check_hostPathVolumes.go, check_hostNamespaces.go, check_privileged.go,
check_hostPorts.go, check_capabilities_baseline.go (v1.31.0).

The checks of one volume, namespace flag, securityContext and port list are shared: the
job rules below walk a job spec, `pod_spec_problems` walks a plain pod spec (the team's
objects in resources/, kgen.resources.policy).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from kgen.errors import DataPath, Problem, shortened
from kgen.rules.context import Rule, RuleContext
from kgen.rules.places import Place, places
from kgen.rules.reads import reads
from kgen.spec.job import JobSpec

# What a container may add under baseline (check_capabilities_baseline.go): the
# container runtime's default set, compared as written (CAP_CHOWN is not CHOWN).
DEFAULT_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)
# The node namespaces a pod may share: field, rule id, what it shares.
HOST_NAMESPACES = (
    ("hostPID", "host-pid", "processes"),
    ("hostIPC", "host-ipc", "shared memory"),
    ("hostNetwork", "host-network", "network"),
)
# The container lists of a pod (check_privileged.go visits all three).
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


class Words(NamedTuple):
    """How a message names the pods and how a hint says to allow a rule."""

    pods: str
    allow: Callable[[str], str]


JOB_WORDS = Words("every pod of the job", lambda code: "lint.ignore")


def host_path(name: object, path: DataPath, words: Words) -> Problem:
    shown = f"'{shortened(name, 64)}'" if isinstance(name, str) else "without a name"
    return Problem(
        f"volume {shown} is a hostPath: the pod reads and writes the node's files",
        "host-path",
        path=path,
        at_key=True,
        hint=f"use a claim or an emptyDir, or allow it with {words.allow('host-path')}"
        " and a reason",
    )


def host_namespace(key: str, path: DataPath, words: Words) -> Problem:
    code, what = next((c, w) for k, c, w in HOST_NAMESPACES if k == key)
    return Problem(
        f"{key} shares the node's {what} with {words.pods}",
        code,
        path=path,
        hint=f"allow it where needed with {words.allow(code)} and a reason",
    )


def privilege(context: object, path: DataPath, words: Words) -> Iterator[Problem]:
    """What one container's securityContext (at `path`) asks beyond baseline."""
    if not isinstance(context, dict):
        return
    if context.get("privileged") is True:
        yield Problem(
            "a privileged container is root on the node",
            "privileged-container",
            path=(*path, "privileged"),
            hint="ask for the device as an extended resource, or allow it with"
            f" {words.allow('privileged-container')} and a reason",
        )
    added = context.get("capabilities")
    added = added.get("add") if isinstance(added, dict) else None
    for index, name in enumerate(added if isinstance(added, list) else ()):
        if isinstance(name, str) and name not in DEFAULT_CAPABILITIES:
            yield Problem(
                f"capability {shortened(name, 64)} is beyond the container"
                " runtime's default set",
                "added-capabilities",
                path=(*path, "capabilities", "add", index),
                hint="drop it from capabilities.add, or allow it with"
                f" {words.allow('added-capabilities')} and a reason",
            )


def host_ports(ports: object, path: DataPath, words: Words) -> Iterator[Problem]:
    """The host ports of one container's port list (at `path`)."""
    for index, port in enumerate(ports if isinstance(ports, list) else ()):
        value = port.get("hostPort") if isinstance(port, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value:
            yield Problem(
                f"hostPort {value} binds the node's port: one such pod per node,"
                " reachable from outside the cluster",
                "host-port",
                path=(*path, index, "hostPort"),
                hint="reach the pod through its own port or a Service, or allow it"
                f" with {words.allow('host-port')} and a reason",
            )


def pod_spec_problems(
    pod: Mapping[str, Any], base: DataPath, words: Words
) -> Iterator[Problem]:
    """Every rule over a plain pod spec at `base` (a Pod's `spec`, a template's), whatever
    its values' types: a value of a wrong type is no finding here."""
    volumes = pod.get("volumes")
    for index, volume in enumerate(volumes if isinstance(volumes, list) else ()):
        if isinstance(volume, dict) and volume.get("hostPath") is not None:
            path = (*base, "volumes", index, "hostPath")
            yield host_path(volume.get("name"), path, words)
    for key, _code, _what in HOST_NAMESPACES:
        if pod.get(key) is True:
            yield host_namespace(key, (*base, key), words)
    for list_key in CONTAINER_LISTS:
        containers = pod.get(list_key)
        for index, item in enumerate(
            containers if isinstance(containers, list) else ()
        ):
            if not isinstance(item, dict):
                continue
            path = (*base, list_key, index)
            yield from privilege(
                item.get("securityContext"), (*path, "securityContext"), words
            )
            yield from host_ports(item.get("ports"), (*path, "ports"), words)


def _sidecars(place: Place) -> Iterator[tuple[Any, DataPath]]:
    """Each init container and sidecar of the job or a role, with its path."""
    for key, attr in (
        ("initContainers", "init_containers"),
        ("containers", "containers"),
    ):
        for index, item in enumerate(place.set.get(attr) or ()):
            yield item, (*place.path, key, index)


@reads("volumes", "hostPID", "hostIPC", "hostNetwork")
def _host_access(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    for index, volume in enumerate(spec.volumes):
        if volume.host_path is not None:
            yield host_path(volume.name, ("volumes", index, "hostPath"), JOB_WORDS)
    for key, on in (
        ("hostPID", spec.host_pid),
        ("hostIPC", spec.host_ipc),
        ("hostNetwork", spec.host_network),
    ):
        if on:
            yield host_namespace(key, (key,), JOB_WORDS)


def _security_contexts(spec: JobSpec) -> Iterator[tuple[Any, DataPath]]:
    """Every container's securityContext: the trainer's (job-wide and each role's),
    each sidecar's and init container's."""
    # A place without one has nothing to report (kgen.rules.places: set is truthy).
    for place in places(spec):
        if "security_context" in place.set:
            path = (*place.path, "securityContext")
            yield place.set["security_context"], path
        for item, path in _sidecars(place):
            context = item.get("securityContext") if isinstance(item, dict) else None
            yield context, (*path, "securityContext")


@reads("roles", "securityContext", "containers", "initContainers")
def _privilege(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    for context, path in _security_contexts(spec):
        yield from privilege(context, path, JOB_WORDS)


def _port_lists(spec: JobSpec) -> Iterator[tuple[Any, DataPath]]:
    """The trainer's ports (job-wide and each role's) and each sidecar's."""
    for place in places(spec):
        if "ports" in place.set:
            yield place.set["ports"], (*place.path, "ports")
        for item, path in _sidecars(place):
            yield (
                item.get("ports") if isinstance(item, dict) else None,
                (*path, "ports"),
            )


@reads("roles", "ports", "containers", "initContainers")
def _host_ports(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    for ports, path in _port_lists(spec):
        yield from host_ports(ports, path, JOB_WORDS)


POD_SECURITY_RULES: tuple[Rule, ...] = (_host_access, _privilege, _host_ports)
