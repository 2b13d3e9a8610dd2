"""The pod template of one role: the job-wide settings with that role's overrides."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kgen.render.volumes import CODE_VOLUME, container_mounts, pod_volumes
from kgen.spec.addons import CodeSync
from kgen.spec.job import JobSpec, Role, role_items
from kgen.spec.pod import EnvVar, Toleration

CHECKOUT = "repo"  # git-sync's --link: the checkout is at <codeSync.path>/repo


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
        gpu = 0 if name == "ps" else spec.resources.gpu
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


def replica_specs(
    spec: JobSpec,
    keys: Mapping[str, str],
    *,
    container: str,
    port_name: str,
    port: int,
    default_restart: str,
) -> dict[str, Any]:
    """Every role as the operator's ReplicaSpec: explicit replicas and restart policy,
    and the role's own pod template (kubeflow-api.md §3.3)."""
    return {
        keys[name]: {
            "replicas": role.replicas,
            "restartPolicy": role.restart_policy or default_restart,
            "template": pod_template(
                spec,
                role_settings(spec, name, role),
                container=container,
                port_name=port_name,
                port=port,
            ),
        }
        for name, role in role_items(spec)
    }


def pod_template(
    spec: JobSpec, settings: RoleSettings, *, container: str, port_name: str, port: int
) -> dict[str, Any]:
    """A PodTemplateSpec with the operator's named container and port.

    The operator finds the container and port by name (kubeflow-api.md §2.4), and the CRD
    defaults `protocol: TCP` on every port: emitting it keeps Argo CD's diff clean (§3.2).
    """
    main = training_container(spec, settings, name=container)
    main["ports"] = [{"name": port_name, "containerPort": port, "protocol": "TCP"}]
    main = _ordered(main)
    identity = (
        ("serviceAccountName", spec.service_account_name),
        ("priorityClassName", spec.priority_class_name),
        ("schedulerName", spec.scheduler_name),
    )
    pod: dict[str, Any] = {key: value for key, value in identity if value}
    if spec.host_network:
        pod["hostNetwork"] = True
        pod["dnsPolicy"] = "ClusterFirstWithHostNet"
    if spec.host_ipc:
        pod["hostIPC"] = True
    if spec.pod_security_context is not None:
        pod["securityContext"] = spec.pod_security_context
    if spec.image_pull_secrets:
        pod["imagePullSecrets"] = [{"name": name} for name in spec.image_pull_secrets]
    if spec.code_sync is not None:
        pod["initContainers"] = [git_sync_container(spec.code_sync)]
    pod["containers"] = [main]
    if settings.node_selector:
        pod["nodeSelector"] = settings.node_selector
    if settings.affinity is not None:
        pod["affinity"] = settings.affinity
    if settings.tolerations:
        pod["tolerations"] = [
            t.model_dump(by_alias=True, exclude_none=True) for t in settings.tolerations
        ]
    volumes = pod_volumes(spec)
    if volumes:
        pod["volumes"] = volumes
    template: dict[str, Any] = {}
    metadata = _template_metadata(spec)
    if metadata:
        template["metadata"] = metadata
    template["spec"] = pod
    return template


_CONTAINER_ORDER = (
    "name",
    "image",
    "imagePullPolicy",
    "command",
    "args",
    "workingDir",
    "env",
    "envFrom",
    "ports",
)


def _ordered(container: dict[str, Any]) -> dict[str, Any]:
    first = {k: container[k] for k in _CONTAINER_ORDER if k in container}
    return {**first, **{k: v for k, v in container.items() if k not in first}}


def training_container(
    spec: JobSpec, settings: RoleSettings, *, name: str
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "image": settings.image}
    if spec.image_pull_policy:
        out["imagePullPolicy"] = spec.image_pull_policy
    if settings.command is not None:
        out["command"] = list(settings.command)
    if settings.args is not None:
        out["args"] = list(settings.args)
    working_dir = spec.working_dir
    if working_dir is None and spec.code_sync is not None:
        working_dir = f"{spec.code_sync.path.rstrip('/')}/{CHECKOUT}"
    if working_dir:
        out["workingDir"] = working_dir
    if settings.env:
        out["env"] = [env_entry(var) for var in settings.env]
    if spec.env_from:
        out["envFrom"] = [
            _env_from(item.config_map, item.secret, item.prefix)
            for item in spec.env_from
        ]
    resources = {
        k: v
        for k, v in (("limits", settings.limits), ("requests", settings.requests))
        if v
    }
    if resources:
        out["resources"] = resources
    mounts = container_mounts(spec)
    if mounts:
        out["volumeMounts"] = mounts
    if spec.security_context is not None:
        out["securityContext"] = spec.security_context
    return out


def env_entry(var: EnvVar) -> dict[str, Any]:
    """A literal value, or the reference; a Secret's value never appears in output."""
    if var.value is not None:
        return {"name": var.name, "value": var.value}
    if var.field_ref is not None:
        return {
            "name": var.name,
            "valueFrom": {
                "fieldRef": {"apiVersion": "v1", "fieldPath": var.field_ref.field_path}
            },
        }
    kind, ref = (
        ("secretKeyRef", var.secret_key_ref)
        if var.secret_key_ref
        else ("configMapKeyRef", var.config_map_key_ref)
    )
    assert ref is not None
    return {
        "name": var.name,
        "valueFrom": {kind: ref.model_dump(by_alias=True, exclude_none=True)},
    }


def _env_from(
    config_map: str | None, secret: str | None, prefix: str | None
) -> dict[str, Any]:
    out: dict[str, Any] = (
        {"configMapRef": {"name": config_map}}
        if config_map
        else {"secretRef": {"name": secret}}
    )
    if prefix:
        out["prefix"] = prefix
    return out


def git_sync_container(sync: CodeSync) -> dict[str, Any]:
    """git-sync v4, one shot, into the shared emptyDir (arena's --sync-mode git, with a ref
    and credentials by Secret reference, which arena lacks)."""
    container: dict[str, Any] = {
        "name": "git-sync",
        "image": sync.image,
        "args": [
            f"--repo={sync.repo}",
            f"--ref={sync.ref}",
            f"--root={sync.path}",
            f"--link={CHECKOUT}",
            f"--depth={sync.depth}",
            "--one-time",
        ],
    }
    if sync.credentials_secret:
        container["env"] = [
            {
                "name": f"GITSYNC_{key.upper()}",
                "valueFrom": {
                    "secretKeyRef": {"name": sync.credentials_secret, "key": key}
                },
            }
            for key in ("username", "password")
        ]
    container["volumeMounts"] = [{"name": CODE_VOLUME, "mountPath": sync.path}]
    return container


def _template_metadata(spec: JobSpec) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if spec.pod_labels:
        meta["labels"] = dict(sorted(spec.pod_labels.items()))
    if spec.pod_annotations:
        meta["annotations"] = dict(sorted(spec.pod_annotations.items()))
    return meta
