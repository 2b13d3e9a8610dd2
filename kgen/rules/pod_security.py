"""What the baseline Pod Security Standard forbids of a pod, as far as kgen renders it:
hostPath volumes, the node's PID, IPC and network namespaces, privileged containers,
host ports and capabilities beyond the runtime's defaults.

Each is a policy rule: silenceable with a reason, per job or per environment through an
overlay's `lint.ignore`, unless the environment's policy forbids it
(kgen.rules.forbidden). The fields and allowed values are the Pod Security admission's:
kubernetes/kubernetes staging/src/k8s.io/pod-security-admission/policy/
check_hostPathVolumes.go, check_hostNamespaces.go, check_privileged.go,
check_hostPorts.go, check_capabilities_baseline.go (v1.31.0).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kgen.errors import DataPath, Problem, shortened
from kgen.rules.context import Rule, RuleContext
from kgen.spec.job import JobSpec, role_items

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
_ALLOW = "or allow it with lint.ignore and a reason"


def _owners(spec: JobSpec) -> list[tuple[Any, DataPath]]:
    """The job and each role, with the path of their keys."""
    return [(spec, ()), *((role, ("roles", n)) for n, role in role_items(spec))]


def _sidecars(owner: Any, base: DataPath) -> Iterator[tuple[Any, DataPath]]:
    # A model's fields are in its __dict__ (a Role lacks some; this runs on every render).
    for key, attr in (
        ("initContainers", "init_containers"),
        ("containers", "containers"),
    ):
        for index, item in enumerate(owner.__dict__.get(attr) or ()):
            yield item, (*base, key, index)


def _host_access(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    for index, volume in enumerate(spec.volumes):
        if volume.host_path is not None:
            yield Problem(
                f"volume '{volume.name}' is a hostPath: the pod reads and writes the node's files",
                "host-path",
                path=("volumes", index, "hostPath"),
                at_key=True,
                hint=f"use a claim or an emptyDir, {_ALLOW}",
            )
    for key, on, code, what in (
        ("hostPID", spec.host_pid, "host-pid", "processes"),
        ("hostIPC", spec.host_ipc, "host-ipc", "shared memory"),
        ("hostNetwork", spec.host_network, "host-network", "network"),
    ):
        if on:
            yield Problem(
                f"{key} shares the node's {what} with every pod of the job",
                code,
                path=(key,),
                hint="allow it where needed with lint.ignore and a reason",
            )


def _security_contexts(spec: JobSpec) -> Iterator[tuple[Any, DataPath]]:
    """Every container's securityContext: the trainer's (job-wide and each role's),
    each sidecar's and init container's."""
    for owner, base in _owners(spec):
        yield owner.__dict__.get("security_context"), (*base, "securityContext")
        for item, path in _sidecars(owner, base):
            context = item.get("securityContext") if isinstance(item, dict) else None
            yield context, (*path, "securityContext")


def _privilege(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    for context, path in _security_contexts(spec):
        if not isinstance(context, dict):
            continue
        if context.get("privileged") is True:
            yield Problem(
                "a privileged container is root on the node",
                "privileged-container",
                path=(*path, "privileged"),
                hint=f"ask for the device as an extended resource, {_ALLOW}",
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
                    hint=f"drop it from capabilities.add, {_ALLOW}",
                )


def _port_lists(spec: JobSpec) -> Iterator[tuple[Any, DataPath]]:
    """The trainer's ports (job-wide and each role's) and each sidecar's."""
    for owner, base in _owners(spec):
        yield owner.__dict__.get("ports"), (*base, "ports")
        for item, path in _sidecars(owner, base):
            yield (
                item.get("ports") if isinstance(item, dict) else None,
                (*path, "ports"),
            )


def _host_ports(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    for ports, path in _port_lists(spec):
        for index, port in enumerate(ports if isinstance(ports, list) else ()):
            value = port.get("hostPort") if isinstance(port, dict) else None
            if isinstance(value, int) and not isinstance(value, bool) and value:
                yield Problem(
                    f"hostPort {value} binds the node's port: one such pod per node,"
                    " reachable from outside the cluster",
                    "host-port",
                    path=(*path, index, "hostPort"),
                    hint=f"reach the pod through its own port or a Service, {_ALLOW}",
                )


POD_SECURITY_RULES: tuple[Rule, ...] = (_host_access, _privilege, _host_ports)
