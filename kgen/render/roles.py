"""What one role runs with: the job-wide settings with that role's overrides."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgen.kinds import kind_for
from kgen.spec.job import JobSpec, Role
from kgen.spec.pod import EnvVar, Toleration


@dataclass(frozen=True)
class RoleSettings:
    """What one role runs with, after inheriting from the job."""

    image: str
    command: list[str] | None
    args: list[str] | None
    env: list[EnvVar]
    requests: dict[str, str]
    limits: dict[str, str]
    node_selector: dict[str, str]
    tolerations: list[Toleration]
    affinity: dict[str, Any] | None


# The settings of the specs rendered last, by spec identity: the policy rules, the
# renderer and the load facts each ask for every role of the spec being rendered.
_RECENT: dict[int, tuple[JobSpec, dict[str, RoleSettings]]] = {}
_RECENT_SPECS = 8


def role_settings(spec: JobSpec, name: str, role: Role) -> RoleSettings:
    """Role keys replace job keys; env and tolerations merge by name and key; resources
    merge per resource. A parameter server gets no GPU unless its role asks for one.

    `role` is `spec`'s role `name`; callers share the result, so none may change it."""
    entry = _RECENT.get(id(spec))
    if entry is None or entry[0] is not spec:
        if len(_RECENT) >= _RECENT_SPECS:
            _RECENT.clear()
        entry = _RECENT[id(spec)] = (spec, {})
    settings = entry[1].get(name)
    if settings is None:
        settings = entry[1][name] = _role_settings(spec, name, role)
    return settings


def _role_settings(spec: JobSpec, name: str, role: Role) -> RoleSettings:
    overrides = role.resources
    requests = spec.resources.requests.model_dump(by_alias=True, exclude_none=True)
    limits = spec.resources.limits.model_dump(by_alias=True, exclude_none=True)
    if overrides is not None and overrides.requests is not None:
        requests |= overrides.requests.model_dump(by_alias=True, exclude_none=True)
    if overrides is not None and overrides.limits is not None:
        limits |= overrides.limits.model_dump(by_alias=True, exclude_none=True)
    gpu = overrides.gpu if overrides is not None and overrides.gpu is not None else None
    if gpu is None:
        default = kind_for(spec.framework).role(name).gpu_by_default
        gpu = spec.resources.gpu if default else 0
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
    )


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
