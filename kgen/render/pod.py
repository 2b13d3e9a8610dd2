"""Each role as the operator's ReplicaSpec: its pod template with the operator's named
container and port, the git-sync init container and the volumes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgen.render.roles import RoleSettings, role_settings
from kgen.render.volumes import CODE_VOLUME, container_mounts, pod_volumes
from kgen.spec.addons import CodeSync
from kgen.spec.job import JobSpec, role_items
from kgen.spec.pod import EnvVar

if TYPE_CHECKING:
    from kgen.kinds.base import Kind

CHECKOUT = "repo"  # git-sync's --link: the checkout is at <codeSync.path>/repo


def replica_specs(spec: JobSpec, kind: Kind) -> dict[str, Any]:
    """Every role as the operator's ReplicaSpec: explicit replicas and restart policy,
    and the role's own pod template (kubeflow-api.md §3.3)."""
    return {
        kind.role(name).key: {
            "replicas": role.replicas,
            "restartPolicy": role.restart_policy or kind.default_restart,
            "template": pod_template(
                spec,
                role_settings(spec, name, role),
                container=kind.container,
                port_name=kind.port_name,
                port=kind.port,
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
