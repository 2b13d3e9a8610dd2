"""What one role runs with: the job-wide settings with that role's overrides."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

from pydantic.alias_generators import to_camel

from kgen.kinds import kind_for
from kgen.render.recent import RecentSpecs
from kgen.spec.job import JobSpec, Role
from kgen.spec.pod import EnvVar, Toleration


class RoleSettings(NamedTuple):
    """What one role runs with, after inheriting from the job. A NamedTuple: a frozen
    dataclass's methods were compiled from source at import (this one's, 0.7% of a
    one-spec validate)."""

    image: str | None  # None only for a TrainJob: the runtime's image runs
    command: list[str] | None
    args: list[str] | None
    env: list[EnvVar]
    requests: dict[str, str]
    limits: dict[str, str]
    node_selector: dict[str, str]
    tolerations: list[Toleration]
    affinity: dict[str, Any] | None
    # The pod as a team writes it (issue 18): sidecars and init containers by name,
    # the trainer's own ports by containerPort, probes by kind (`livenessProbe`).
    containers: list[dict[str, Any]]
    init_containers: list[dict[str, Any]]
    ports: list[dict[str, Any]]
    probes: dict[str, dict[str, Any]]
    security_context: dict[str, Any] | None
    pod_security_context: dict[str, Any] | None
    shared_memory: str | None
    pod_labels: dict[str, str]
    pod_annotations: dict[str, str]

    def port(self, name: str, default: int) -> int:
        """The container port named `name` (the operator's port, which a job may move
        with a port of that name), else `default`: what the env contract reads."""
        for entry in self.ports:
            if entry.get("name") == name and isinstance(
                entry.get("containerPort"), int
            ):
                return int(entry["containerPort"])
        return default


_PROBES = ("liveness_probe", "readiness_probe", "startup_probe")
# Settings whose values the spec types (strings, its own models) compare by value; the
# rest hold Kubernetes objects as written, where 1 == True == 1.0 would call two
# different pods alike, so only the very same object is the same.
_TYPED = (
    "image",
    "command",
    "args",
    "env",
    "requests",
    "limits",
    "node_selector",
    "tolerations",
    "shared_memory",
    "pod_labels",
    "pod_annotations",
)
_AS_WRITTEN = ("affinity", "security_context", "pod_security_context")
_LISTS_AS_WRITTEN = ("containers", "init_containers", "ports")


def same_settings(one: RoleSettings, other: RoleSettings) -> bool:
    """Whether two roles of one spec run the same pods (the usual chief and worker)."""
    if one is other:
        return True
    return (
        _typed(one) == _typed(other)
        and _same_items(_as_written(one), _as_written(other))
        and all(
            _same_items(getattr(one, name), getattr(other, name))
            for name in _LISTS_AS_WRITTEN
        )
        and list(one.probes) == list(other.probes)
        and _same_items(list(one.probes.values()), list(other.probes.values()))
    )


_typed = operator.attrgetter(*_TYPED)
_as_written = operator.attrgetter(*_AS_WRITTEN)


def _same_items(one: Sequence[Any], other: Sequence[Any]) -> bool:
    return len(one) == len(other) and all(
        a is b for a, b in zip(one, other, strict=True)
    )


# The policy rules, the renderer and the load facts each ask for every role of the
# spec being rendered (kgen.render.recent).
# Keyed by role name, and by whether the job's GPUs go to a role that overrides nothing.
_SETTINGS: RecentSpecs[dict[Any, RoleSettings]] = RecentSpecs()


def role_settings(spec: JobSpec, name: str, role: Role) -> RoleSettings:
    """Role keys replace job keys; env and tolerations merge by name and key; resources
    merge per resource. A parameter server gets no GPU unless its role asks for one.

    `role` is `spec`'s role `name`; callers share the result, so none may change it."""
    kept = _SETTINGS.get(spec, dict)
    settings = kept.get(name)
    if settings is None:
        settings = kept[name] = _own_or_inherited(spec, name, role, kept)
    return settings


# Every field of a role that _role_settings and _pod_settings read.
_OVERRIDES = (
    "resources",
    "image",
    "command",
    "args",
    "env",
    "node_selector",
    "tolerations",
    "affinity",
    *_PROBES,
    "containers",
    "init_containers",
    "ports",
    "security_context",
    "pod_security_context",
    "shared_memory",
    "pod_labels",
    "pod_annotations",
)


_OVERRIDDEN = frozenset(_OVERRIDES)


def _own_or_inherited(
    spec: JobSpec, name: str, role: Role, kept: dict[Any, RoleSettings]
) -> RoleSettings:
    """A role that sets none of its overrides (the usual chief, master and worker) runs
    with the job's settings, which differ only in whether the role's kind gives it the
    job's GPUs: made once for all such roles, which share them, so `same_settings`
    knows them alike at once."""
    # A field the role's data does not set holds its default, None
    # (tests/test_shared_walks.py): most roles set none, and pass at one look.
    if not role.model_fields_set.isdisjoint(_OVERRIDDEN) and any(
        getattr(role, field) is not None for field in _OVERRIDES
    ):
        return _role_settings(spec, name, role)
    gpu_by_default = kind_for(spec.framework).role(name).gpu_by_default
    settings: RoleSettings | None = kept.get(gpu_by_default)
    if settings is None:
        settings = kept[gpu_by_default] = _role_settings(spec, name, role)
    return settings


def _role_settings(spec: JobSpec, name: str, role: Role) -> RoleSettings:
    overrides = role.resources
    requests = spec.resources.requests.model_dump(by_alias=True, exclude_none=True)
    limits = spec.resources.limits.model_dump(by_alias=True, exclude_none=True)
    if overrides is not None and overrides.requests is not None:
        requests |= overrides.requests.model_dump(by_alias=True, exclude_none=True)
    if overrides is not None and overrides.limits is not None:
        limits |= overrides.limits.model_dump(by_alias=True, exclude_none=True)
    gpu = role_gpus(spec, name, role)
    if gpu:
        # Extended resources are set as limits; Kubernetes takes the request from it.
        limits[spec.resources.gpu_resource] = str(gpu)
    return RoleSettings(
        image=role.image or spec.image,
        command=role.command if role.command is not None else spec.command,
        args=role.args if role.args is not None else spec.args,
        env=_merged(spec.env, role.env or [], key="name"),
        requests=dict(sorted(requests.items())),
        limits=dict(sorted(limits.items())),
        node_selector=dict(
            sorted({**spec.node_selector, **(role.node_selector or {})}.items())
        ),
        tolerations=_merged(spec.tolerations, role.tolerations or [], key="key"),
        affinity=role.affinity if role.affinity is not None else spec.affinity,
        **_pod_settings(spec, role),
    )


def role_gpus(spec: JobSpec, name: str, role: Role) -> int:
    """The GPUs of each pod of the role, counted in resources.gpu: the role's own, or
    the job's if the role's kind gives it the job's GPUs."""
    overrides = role.resources
    if overrides is not None and overrides.gpu is not None:
        return overrides.gpu
    default = kind_for(spec.framework).role(name).gpu_by_default
    return spec.resources.gpu if default else 0


def _pod_settings(spec: JobSpec, role: Role) -> dict[str, Any]:
    probes = {}
    for name in _PROBES:
        value = getattr(role, name)
        value = value if value is not None else getattr(spec, name)
        if value is not None:
            probes[to_camel(name)] = value
    return {
        "containers": _merged_dicts(spec.containers, role.containers, "name"),
        "init_containers": _merged_dicts(
            spec.init_containers, role.init_containers, "name"
        ),
        "ports": _merged_dicts(spec.ports, role.ports, "containerPort"),
        "probes": probes,
        "security_context": _either(role.security_context, spec.security_context),
        "pod_security_context": _either(
            role.pod_security_context, spec.pod_security_context
        ),
        "shared_memory": _either(role.shared_memory, spec.shared_memory),
        "pod_labels": dict(
            sorted({**spec.pod_labels, **(role.pod_labels or {})}.items())
        ),
        "pod_annotations": dict(
            sorted({**spec.pod_annotations, **(role.pod_annotations or {})}.items())
        ),
    }


def _key(item: dict[str, Any], key: str) -> str | int | None:
    # Before the core check has refused it, a key may be any YAML value.
    value = item.get(key)
    return value if isinstance(value, str | int) else None


def _either(own: Any, inherited: Any) -> Any:
    return own if own is not None else inherited


def _merged_dicts(
    base: list[dict[str, Any]], extra: list[dict[str, Any]] | None, key: str
) -> list[dict[str, Any]]:
    """A role's items over the job's by `key` (a container's name, a port's number):
    the role's replaces the job's of the same key, a new one is appended."""
    if not extra:
        return base
    out = list(base)
    at = {_key(item, key): i for i, item in reversed(list(enumerate(out)))}
    for item in extra:
        name = _key(item, key)
        if name is not None and name in at:
            out[at[name]] = item
        else:
            at.setdefault(name, len(out))
            out.append(item)
    return out


def _merged(base: list[Any], extra: list[Any], *, key: str) -> list[Any]:
    """`extra` over `base` by `key`: a named item replaces the first of its name, a new
    one is appended, a keyless one once. Indexed, so 10,000 over 10,000 is linear."""
    out = list(base)
    if not extra:  # most roles override nothing
        return out
    at: dict[Any, int] = {}
    keyless: set[Any] = set()
    for index, item in enumerate(out):
        name = getattr(item, key)
        if name is None:
            keyless.add(item)
        else:
            at.setdefault(name, index)
    for item in extra:
        name = getattr(item, key)
        if name is None:
            if item not in keyless:
                keyless.add(item)
                out.append(item)
        elif name in at:
            out[at[name]] = item
        else:
            at[name] = len(out)
            out.append(item)
    return out
