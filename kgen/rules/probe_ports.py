"""Probes and lifecycle hooks on a port name their own container does not declare
(probe-unknown-port).

The kubelet looks a probe's named port up among the ports of the probed container
only, never the pod's other containers (kubernetes/kubernetes pkg/probe/util.go,
ResolveContainerPort and findPortByName over `container.Ports`). A name that container
does not declare fails every probe: a liveness probe restarts the container over and
over, a readiness or startup probe keeps it from ever being ready, and the API server
accepts the pod all the same. httpGet and tcpSocket take a name; grpc takes a number
only. The trainer declares the operator's port (`pytorchjob-port`, `tfjob-port`, ...)
beside the job's and its role's `ports`; a sidecar or init container declares its own.
A postStart or preStop hook's port is looked up the same way (pkg/kubelet/lifecycle,
resolvePort): a postStart hook that cannot run kills the container, a preStop hook's
clean-up never runs.

A TrainJob (the one kind without an operator's port) takes no probes, ports or
containers at all: trainjob-cannot-map reports them, and these rules stay quiet.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kgen.errors import DataPath, Problem
from kgen.kinds import kind_of
from kgen.render.roles import role_settings
from kgen.rules.context import Rule, RuleContext
from kgen.rules.places import setting
from kgen.rules.reads import reads
from kgen.spec.job import JobSpec, role_items
from kgen.spec.keys import spelled_like

# The probes of a container, by YAML key and by the spec's attribute.
PROBES = {
    "livenessProbe": "liveness_probe",
    "readinessProbe": "readiness_probe",
    "startupProbe": "startup_probe",
}
# What names a port on a container, by YAML key and by the spec's attribute (the
# trainer's): its probes and its lifecycle hooks.
_HANDLERS = {**PROBES, "lifecycle": "lifecycle"}
# The hooks of a container's `lifecycle` (core/v1 Lifecycle).
HOOKS = ("postStart", "preStop")
# The handlers whose port may be a name (core/v1 HTTPGetAction, TCPSocketAction).
_NAMED = ("httpGet", "tcpSocket")
_CONTAINER_LISTS = (("initContainers", "init_containers"), ("containers", "containers"))


@reads("roles", "ports", *_HANDLERS)
def _trainer_probes(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    """The trainer's probes and hooks, as the job or a role writes them, against the
    ports of the trainer of every role that runs them."""
    places = setting(spec, *_HANDLERS.values())
    port_name = kind_of(spec).port_name
    if not places or not port_name:
        return
    for place in places:
        for key, attr in _HANDLERS.items():
            if attr not in place.set:
                continue
            # A role's own probe replaces the job's (kgen.render.roles); a role has
            # no lifecycle of its own.
            ports = {
                name: _trainer_ports(spec, name, role, port_name)
                for name, role in role_items(spec)
                if place.path == ("roles", name)
                or (not place.path and getattr(role, attr, None) is None)
            }
            for what, name, path in handler_ports(key, place.set[attr], place.path):
                lacking = [role for role, names in ports.items() if name not in names]
                if lacking:
                    whose = _whose(lacking, every=len(lacking) == len(ports))
                    yield unknown_port(what, name, whose, ports[lacking[0]], path)


def _trainer_ports(spec: JobSpec, name: str, role: Any, port_name: str) -> list[str]:
    merged = role_settings(spec, name, role).ports
    # A port named as the operator's moves it (kgen.render.pod): one name, listed once.
    names = (n for p in merged if isinstance(n := p.get("name"), str))
    return list(dict.fromkeys((port_name, *names)))


def _whose(roles: list[str], *, every: bool) -> str:
    return "the trainer" if every else f"the trainer of the {', '.join(roles)} pods"


@reads("roles", "containers", "initContainers")
def _container_probes(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    """Each sidecar's and init container's probes against its own ports: a role's
    container replaces the job's of the same name whole, so each is checked as written."""
    if not kind_of(spec).port_name:
        return
    for place in setting(spec, "containers", "init_containers"):
        for key, attr in _CONTAINER_LISTS:
            for index, item in enumerate(place.set.get(attr) or ()):
                if isinstance(item, dict):
                    yield from _own_probes(item, (*place.path, key, index))


def _own_probes(container: dict[str, Any], path: DataPath) -> Iterator[Problem]:
    ports = container.get("ports")
    declared = [
        n
        for p in (ports if isinstance(ports, list) else ())
        if isinstance(p, dict) and isinstance(n := p.get("name"), str)
    ]
    whose = f"container '{container.get('name')}'"
    for key in _HANDLERS:
        for what, name, at in handler_ports(key, container.get(key), path):
            if name not in declared:
                yield unknown_port(what, name, whose, declared, at)


def handler_ports(
    key: str, value: Any, path: DataPath
) -> Iterator[tuple[str, str, DataPath]]:
    """The port names the probe or the lifecycle written under `key` (at `path`)
    gives: what names each (`livenessProbe`, `postStart hook`), the name, its path."""
    if key != "lifecycle":
        for name, at in named_ports(value, (*path, key)):
            yield key, name, at
        return
    for hook in HOOKS if isinstance(value, dict) else ():
        for name, at in named_ports(value.get(hook), (*path, key, hook)):
            yield f"{hook} hook", name, at


def named_ports(probe: Any, path: DataPath) -> Iterator[tuple[str, DataPath]]:
    """The port names a probe's handlers give, each with its path."""
    if not isinstance(probe, dict):
        return
    for handler in _NAMED:
        action = probe.get(handler)
        port = action.get("port") if isinstance(action, dict) else None
        if isinstance(port, str):
            yield port, (*path, handler, "port")


def unknown_port(
    probe: str, name: str, whose: str, declared: list[str], path: DataPath
) -> Problem:
    close = spelled_like(name, declared)
    if close is not None:
        hint = f"did you mean '{close}'?"
    elif name.isascii() and name.isdigit():
        hint = f"write the port number unquoted (`port: {name}`)"
    elif declared:
        listed = ", ".join(declared)
        hint = f"{whose} declares ports: {listed}; name one of them, or declare '{name}' under ports"
    else:
        hint = f"{whose} declares no ports: declare '{name}' under its ports"
    outcome = "run the hook" if probe.endswith(" hook") else "probe it"
    return Problem(
        f"{probe} names port '{name}', which {whose} does not declare: the kubelet cannot {outcome}",
        "probe-unknown-port",
        path=path,
        hint=hint,
    )


PROBE_RULES: tuple[Rule, ...] = (_trainer_probes, _container_probes)
