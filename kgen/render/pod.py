"""The pod template every replica type shares."""

from __future__ import annotations

from typing import Any

from kgen.models import JobSpec, Resources


def pod_template(
    spec: JobSpec, *, container_name: str, port_name: str, port: int
) -> dict[str, Any]:
    """A PodTemplateSpec with the operator's named container and port.

    The operator finds the container and port by name (kubeflow-api.md §2.4), and the CRD
    defaults `protocol: TCP` on every port: emitting it keeps Argo CD's diff clean (§3.2).
    """
    container: dict[str, Any] = {"name": container_name, "image": spec.image}
    if spec.image_pull_policy:
        container["imagePullPolicy"] = spec.image_pull_policy
    if spec.command is not None:
        container["command"] = list(spec.command)
    if spec.args is not None:
        container["args"] = list(spec.args)
    if spec.env:
        container["env"] = [{"name": var.name, "value": var.value} for var in spec.env]
    container["ports"] = [{"name": port_name, "containerPort": port, "protocol": "TCP"}]
    resources = container_resources(spec.resources)
    if resources:
        container["resources"] = resources
    if spec.volumes:
        container["volumeMounts"] = [_mount(volume) for volume in spec.volumes]
    pod: dict[str, Any] = {"containers": [container]}
    if spec.node_selector:
        pod["nodeSelector"] = dict(sorted(spec.node_selector.items()))
    if spec.tolerations:
        pod["tolerations"] = [
            t.model_dump(by_alias=True, exclude_none=True) for t in spec.tolerations
        ]
    if spec.volumes:
        pod["volumes"] = [
            {"name": v.name, "persistentVolumeClaim": {"claimName": v.claim}}
            for v in spec.volumes
        ]
    return {"spec": pod}


def container_resources(resources: Resources) -> dict[str, Any]:
    out: dict[str, Any] = {}
    limits = resources.limits.model_dump(by_alias=True, exclude_none=True)
    if resources.gpu:
        # Extended resources are set as limits; Kubernetes takes the request from it.
        limits[resources.gpu_resource] = str(resources.gpu)
    if limits:
        out["limits"] = dict(sorted(limits.items()))
    requests = resources.requests.model_dump(by_alias=True, exclude_none=True)
    if requests:
        out["requests"] = dict(sorted(requests.items()))
    return out


def _mount(volume: Any) -> dict[str, Any]:
    mount: dict[str, Any] = {"name": volume.name, "mountPath": volume.mount_path}
    if volume.sub_path:
        mount["subPath"] = volume.sub_path
    if volume.read_only:
        mount["readOnly"] = True
    return mount
