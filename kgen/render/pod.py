"""Each role as the operator's ReplicaSpec: its pod template with the operator's named
container and port, the git-sync init container and the volumes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgen.output.emitter import shared
from kgen.render.recent import RecentSpecs
from kgen.render.roles import RoleSettings, role_settings, same_settings
from kgen.render.volumes import CODE_VOLUME, container_mounts, pod_volumes
from kgen.spec.addons import CodeSync
from kgen.spec.job import JobSpec, role_items
from kgen.spec.pod import EnvVar

if TYPE_CHECKING:
    from kgen.kinds.base import Kind

CHECKOUT_CONTAINER = "git-sync"


# The replica specs of the specs rendered last, by spec identity and kind. They do not
# depend on the environment, and environments that merge a job alike share its
# validated spec (kgen.pipeline.stage), so they build and emit them once. Each spec is
# held, so its id is not reused.
_REPLICA_SPECS: RecentSpecs[dict[str, Any]] = RecentSpecs()


def replica_specs(spec: JobSpec, kind: Kind) -> dict[str, Any]:
    """Every role as the operator's ReplicaSpec: explicit replicas and restart policy,
    and the role's own pod template (kubeflow-api.md §3.3).

    Shared between renders, and roles with the same settings share one template
    (kgen.output.emitter writes a shared sub-tree once): no caller may change them."""
    return _REPLICA_SPECS.get(spec, lambda: _replica_specs(spec, kind), key=kind.kind)


def _replica_specs(spec: JobSpec, kind: Kind) -> dict[str, Any]:
    specs: dict[str, Any] = {}
    made: list[tuple[RoleSettings, dict[str, Any]]] = []
    for name, role in role_items(spec):
        settings = role_settings(spec, name, role)
        template = next((t for s, t in made if same_settings(s, settings)), None)
        if template is None:
            template = shared(
                pod_template(
                    spec,
                    settings,
                    container=kind.container,
                    port_name=kind.port_name,
                    port=kind.port,
                )
            )
            made.append((settings, template))
        specs[kind.role(name).key] = {
            "replicas": role.replicas,
            "restartPolicy": role.restart_policy or kind.default_restart,
            "template": template,
        }
    return shared(specs)


def pod_template(
    spec: JobSpec, settings: RoleSettings, *, container: str, port_name: str, port: int
) -> dict[str, Any]:
    """A PodTemplateSpec with the operator's named container and port.

    The operator finds the container and port by name (kubeflow-api.md §2.4), and the CRD
    defaults `protocol: TCP` on every port: emitting it keeps Argo CD's diff clean (§3.2).
    A port the job names as the operator's moves it; the job's other ports follow it.
    """
    main = training_container(spec, settings, name=container)
    own = {"name": port_name, "containerPort": settings.port(port_name, port)}
    extra = [p for p in settings.ports if p.get("name") != port_name]
    main["ports"] = [_tcp(own), *map(_tcp, extra)]
    main = _ordered(main)
    pod = _pod_fields(spec, settings)
    init = [git_sync_container(spec.code_sync)] if spec.code_sync is not None else []
    init += map(_with_crd_defaults, settings.init_containers)
    if init:
        pod["initContainers"] = init
    pod["containers"] = [main, *map(_with_crd_defaults, settings.containers)]
    if settings.node_selector:
        pod["nodeSelector"] = settings.node_selector
    if settings.affinity is not None:
        pod["affinity"] = settings.affinity
    if settings.tolerations:
        pod["tolerations"] = [
            t.model_dump(by_alias=True, exclude_none=True) for t in settings.tolerations
        ]
    if spec.topology_spread_constraints:
        pod["topologySpreadConstraints"] = spec.topology_spread_constraints
    volumes = pod_volumes(spec, settings.shared_memory)
    if volumes:
        pod["volumes"] = volumes
    template: dict[str, Any] = {}
    metadata = template_metadata(settings)
    if metadata:
        template["metadata"] = metadata
    template["spec"] = pod
    return template


def _pod_fields(spec: JobSpec, settings: RoleSettings) -> dict[str, Any]:
    """The pod's own fields before its containers, in a fixed order."""
    identity = (
        ("serviceAccountName", spec.service_account_name),
        ("priorityClassName", spec.priority_class_name),
        ("schedulerName", spec.scheduler_name),
        ("runtimeClassName", spec.runtime_class_name),
    )
    pod: dict[str, Any] = {key: value for key, value in identity if value}
    if spec.host_network:
        pod["hostNetwork"] = True
        pod["dnsPolicy"] = "ClusterFirstWithHostNet"
    if spec.dns_policy is not None:
        pod["dnsPolicy"] = spec.dns_policy
    if spec.dns_config is not None:
        pod["dnsConfig"] = spec.dns_config
    if spec.host_aliases:
        pod["hostAliases"] = spec.host_aliases
    if spec.host_ipc:
        pod["hostIPC"] = True
    if spec.host_pid:
        pod["hostPID"] = True
    if settings.pod_security_context is not None:
        pod["securityContext"] = settings.pod_security_context
    if spec.termination_grace_period_seconds is not None:
        pod["terminationGracePeriodSeconds"] = spec.termination_grace_period_seconds
    if spec.image_pull_secrets:
        pod["imagePullSecrets"] = [{"name": name} for name in spec.image_pull_secrets]
    return pod


def _tcp(port: dict[str, Any]) -> dict[str, Any]:
    # The CRD defaults the protocol of every container port (kubeflow-api.md §3.2).
    return port if "protocol" in port else {**port, "protocol": "TCP"}


def _grpc_service(probe: Any) -> Any:
    """training-operator 1.9's CRDs default a gRPC probe's `service` to "" (§3.2), which
    Argo CD's legacy diff cannot see in a list item: written out, as on every release."""
    grpc = probe.get("grpc") if isinstance(probe, dict) else None
    if not isinstance(grpc, dict) or "service" in grpc:
        return probe
    return {**probe, "grpc": {**grpc, "service": ""}}


_PROBE_KEYS = ("livenessProbe", "readinessProbe", "startupProbe")


def _with_crd_defaults(container: dict[str, Any]) -> dict[str, Any]:
    probes = {k: _grpc_service(container[k]) for k in _PROBE_KEYS if k in container}
    return _with_tcp_ports({**container, **probes} if probes else container)


def _with_tcp_ports(container: dict[str, Any]) -> dict[str, Any]:
    ports = container.get("ports")
    if not isinstance(ports, list) or all(
        not isinstance(p, dict) or "protocol" in p for p in ports
    ):
        return container
    fixed = [_tcp(p) if isinstance(p, dict) else p for p in ports]
    return {**container, "ports": fixed}


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
        working_dir = spec.code_sync.working_dir
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
    mounts = container_mounts(spec, settings.shared_memory)
    if mounts:
        out["volumeMounts"] = mounts
    if settings.security_context is not None:
        out["securityContext"] = settings.security_context
    out.update({key: _grpc_service(p) for key, p in settings.probes.items()})
    if spec.lifecycle is not None:
        out["lifecycle"] = spec.lifecycle
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
    """git-sync v4, one shot, into the shared emptyDir at `<path>/<folder>` (arena's
    --sync-mode git: GIT_SYNC_ROOT and GIT_SYNC_DEST, the repository's name; with a ref
    and credentials by Secret reference, which arena lacks). Without a ref git-sync
    checks out HEAD, the remote's default branch, as arena does."""
    args = [f"--repo={sync.repo}"]
    if sync.ref is not None:
        args.append(f"--ref={sync.ref}")
    args += [f"--root={sync.path}", f"--link={sync.checkout}", f"--depth={sync.depth}"]
    if sync.submodules != "recursive":
        args.append(f"--submodules={sync.submodules}")
    args.append("--one-time")
    container: dict[str, Any] = {
        "name": CHECKOUT_CONTAINER,
        "image": sync.image,
        "args": args,
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


def template_metadata(settings: RoleSettings) -> dict[str, Any]:
    """A pod template's labels and annotations (TrainJob's override uses it too)."""
    meta: dict[str, Any] = {}
    if settings.pod_labels:
        meta["labels"] = settings.pod_labels
    if settings.pod_annotations:
        meta["annotations"] = settings.pod_annotations
    return meta
