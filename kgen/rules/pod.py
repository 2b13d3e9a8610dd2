"""Rules over the pod a team writes (issue 18): its core objects checked against the
core definitions at the project's Kubernetes version, and what the API server refuses
although every object is valid on its own (a pod is accepted with the job, then every
pod creation fails). The rules on host access and privilege are kgen.rules.pod_security's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kgen.check import core_objects
from kgen.errors import DataPath, Problem
from kgen.kinds import kind_for
from kgen.render.pod import CHECKOUT_CONTAINER
from kgen.render.volumes import CODE_VOLUME, SHM_VOLUME
from kgen.rules.context import Rule, RuleContext
from kgen.rules.places import places, setting
from kgen.rules.pod_security import POD_SECURITY_RULES
from kgen.rules.probe_ports import PROBE_RULES
from kgen.rules.reads import reads
from kgen.rules.sidecars import SIDECAR_RULES
from kgen.spec.job import JobSpec, role_items
from kgen.spec.keys import suggest
from kgen.spec.pod import ResourceAmounts
from kgen.spec.storage import SOURCE_DEFINITIONS

_V1 = "io.k8s.api.core.v1."
# Spec keys holding one core object or a list of them, and their definitions.
_ONE = {
    "livenessProbe": "Probe",
    "readinessProbe": "Probe",
    "startupProbe": "Probe",
    "lifecycle": "Lifecycle",
    "dnsConfig": "PodDNSConfig",
    "securityContext": "SecurityContext",
    "podSecurityContext": "PodSecurityContext",
}
_MANY = {
    "containers": "Container",
    "initContainers": "Container",
    "ports": "ContainerPort",
    "hostAliases": "HostAlias",
    "topologySpreadConstraints": "TopologySpreadConstraint",
}


@reads("roles", "volumes", *_ONE, *_MANY)
def _pod_objects(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    """Every core object of the pod at its own path (affinity and the job-wide
    security contexts are kgen.rules.spec's)."""
    for place in places(spec):
        # Only the fields that are set: most specs set none (a render's hot path).
        base = place.path
        for attr, value in place.set.items():
            found = _BY_ATTR.get(attr)
            if found is None:
                continue
            key, kind, many = found
            if many:
                for index, item in enumerate(value):
                    yield from _check(item, kind, (*base, key, index), ctx)
            elif base or key not in _CHECKED_ELSEWHERE:
                yield from _check(value, kind, (*base, key), ctx)
    for index, volume in enumerate(spec.volumes):
        for name, (key, definition) in SOURCE_DEFINITIONS.items():
            value = getattr(volume, name)
            if value is not None:
                path = ("volumes", index, key)
                yield from core_objects.check_object(
                    value, definition, path=path, version=ctx.kubernetes_version
                )


_CHECKED_ELSEWHERE = {"securityContext", "podSecurityContext"}


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


_ATTRS = {key: _snake(key) for key in (*_ONE, *_MANY)}
_BY_ATTR = {
    **{_ATTRS[key]: (key, kind, False) for key, kind in _ONE.items()},
    **{_ATTRS[key]: (key, kind, True) for key, kind in _MANY.items()},
}


def _setting(spec: JobSpec, *keys: str) -> list[tuple[Any, DataPath]]:
    """The job and its roles where any of `keys` is set; none for most specs."""
    return [(p.owner, p.path) for p in setting(spec, *(_ATTRS[k] for k in keys))]


def _value(owner: Any, key: str) -> Any:
    # A model's fields are in its __dict__; getattr on a field a Role lacks goes
    # through pydantic's __getattr__, and this runs for every render (hot path).
    return owner.__dict__.get(_ATTRS[key])


def _check(value: Any, kind: str, path: DataPath, ctx: RuleContext) -> list[Problem]:
    return core_objects.check_object(
        value, _V1 + kind, path=path, version=ctx.kubernetes_version
    )


@reads("roles", "containers", "initContainers", "volumes")
def _containers(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    """Names unique in the pod, an image each, mounts of volumes the pod has."""
    places = _setting(spec, "containers", "initContainers")
    if not places:
        return
    trainer = kind_for(spec.framework).container
    volumes = {v.name for v in spec.volumes} | {SHM_VOLUME, CODE_VOLUME}
    for owner, base in places:
        # Containers and init containers share one namespace in a pod.
        taken = {trainer: "the trainer", CHECKOUT_CONTAINER: "codeSync"}
        for key in ("initContainers", "containers"):
            for index, item in enumerate(_value(owner, key) or ()):
                yield from _container(item, (*base, key, index), taken, volumes)


def _container(
    item: dict[str, Any], path: DataPath, taken: dict[str, str], volumes: set[str]
) -> Iterator[Problem]:
    name = item.get("name")
    if isinstance(name, str) and name in taken:
        yield Problem(
            f"container name '{name}' is already used ({taken[name]})",
            "duplicate-container",
            path=(*path, "name"),
            hint="give each container of the pod its own name",
        )
    if isinstance(name, str):
        taken.setdefault(name, f"{path[-2]}[{path[-1]}]")
    if not item.get("image"):
        yield Problem(
            f"container '{name}' has no image",
            "container-needs-image",
            path=path,
            at_key=True,
            hint="the API server refuses a pod whose container has no image",
        )
    mounts = item.get("volumeMounts")  # a number is the schema's to report
    for index, mount in enumerate(mounts if isinstance(mounts, list) else ()):
        used = mount.get("name") if isinstance(mount, dict) else None
        if isinstance(used, str) and used not in volumes:
            yield Problem(
                f"container '{name}' mounts volume '{used}', which the pod does not have",
                "mount-unknown-volume",
                path=(*path, "volumeMounts", index, "name"),
                hint=suggest(used, sorted(volumes))
                or "declare it under volumes (no mountPath for a sidecar's own volume)",
            )


@reads("resources.requests", "resources.limits", "roles")
def _extended_resources(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    places: list[tuple[Any, DataPath]] = [(spec.resources, ("resources",))]
    places += [
        (role.resources, ("roles", name, "resources"))
        for name, role in role_items(spec)
        if role.resources is not None
    ]
    for resources, path in places:
        requests, limits = resources.requests, resources.limits
        for side, amounts in (("requests", requests), ("limits", limits)):
            if amounts is not None:
                yield from _names(amounts, (*path, side))
        for key, wanted in ((requests.model_extra or {}) if requests else {}).items():
            allowed = (limits.model_extra or {}).get(key) if limits else None
            if "/" in key and allowed != wanted:
                yield Problem(
                    f"extended resource {key} is requested without the same limit",
                    "extended-resource-limit",
                    path=(*path, "requests", key),
                    at_key=True,
                    hint=f"set limits.{key}: {wanted} (the request follows the limit)",
                )


def _names(amounts: ResourceAmounts, path: DataPath) -> Iterator[Problem]:
    if not amounts.model_extra:
        return
    from kgen.spec.fields import extended_resource_problem
    from kgen.spec.validate import gpu_hint

    allowed = [info.alias or name for name, info in type(amounts).model_fields.items()]
    for key in amounts.model_extra or {}:
        if (gpus := gpu_hint(key, (*path, key))) is not None:
            # GPUs are counted in resources.gpu (quotas, plan, placement rules), never
            # as an extended resource beside them.
            yield Problem(
                f"unknown key '{key}'",
                "unknown-key",
                path=(*path, key),
                at_key=True,
                hint=gpus,
            )
        elif "/" not in key and not key.startswith("hugepages-"):
            yield Problem(
                f"unknown key '{key}' in resources",
                "unknown-key",
                path=(*path, key),
                at_key=True,
                hint=suggest(key, allowed)
                or "an extended resource is named with its domain, as rdma/hca",
            )
        elif (problem := extended_resource_problem(key)) is not None:
            yield Problem(problem, "invalid-value", path=(*path, key), at_key=True)


@reads("roles", "ports")
def _ports(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    """The trainer's port names unique (the API server refuses a repeated one); a port
    named as the operator's moves it (kgen.render.pod)."""
    places = _setting(spec, "ports")
    if not places:
        return
    kind = kind_for(spec.framework)
    for owner, base in places:
        names: dict[Any, int] = {}
        for index, port in enumerate(_value(owner, "ports") or ()):
            name = port.get("name")
            if name == kind.port_name:
                continue  # moves the operator's port
            if isinstance(name, str) and name in names:
                yield _duplicate_port(
                    f"port name '{name}'", (*base, "ports", index, "name")
                )
            if isinstance(name, str):
                names.setdefault(name, index)


def _duplicate_port(what: str, path: DataPath) -> Problem:
    return Problem(
        f"{what} is used twice in the trainer",
        "duplicate-port",
        path=path,
        hint="give each port its own name and number",
    )


POD_RULES: tuple[Rule, ...] = (
    _pod_objects,
    _containers,
    *SIDECAR_RULES,
    _extended_resources,
    _ports,
    *PROBE_RULES,
    *POD_SECURITY_RULES,
)
