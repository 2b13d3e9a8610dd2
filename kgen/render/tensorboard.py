"""TensorBoard over a job's logs: a Deployment and Service, or Kubeflow's Tensorboard.

The plain pair is the default: it is portable, Argo CD knows its health, and kgen picks
the image. Kubeflow's resource needs its controller and Istio (kubeflow-api.md §10).
"""

from __future__ import annotations

from typing import Any

from kgen.output.emitter import shared
from kgen.render.base import Environment, Manifest, object_meta
from kgen.render.names import tensorboard_name
from kgen.render.recent import RecentSpecs
from kgen.render.volumes import LogSource, mount, tensorboard_source
from kgen.spec.addons import TENSORBOARD_IMAGE, TensorBoard
from kgen.spec.job import JobSpec

PORT = 6006
# A spec's log source and its Deployment's and Service's specs depend on no
# environment (kgen.render.recent). The specs are shared: the emitter writes each once.
_SOURCES: RecentSpecs[LogSource | None] = RecentSpecs()
_SPECS: RecentSpecs[tuple[dict[str, Any], dict[str, Any]]] = RecentSpecs()


def render_tensorboard(spec: JobSpec, env: Environment) -> list[Manifest]:
    board = spec.tensorboard
    if board is None:
        return []
    source = _SOURCES.get(spec, lambda: tensorboard_source(spec))
    if source is None:
        return []
    name = tensorboard_name(spec.name)
    labels = _labels(name)
    meta = object_meta(
        name,
        env,
        labels={**labels, "app.kubernetes.io/part-of": spec.name},
        annotations={},
    )
    if board.kind == "kubeflow":
        # pvc://<claim>/<path>, never a double slash: the controller turns the path into
        # a subPath, and `//x` is an absolute one (jobgen-peers.md §10.5).
        logspath = f"pvc://{source.volume.claim}/{source.path_in_claim}"
        body = {
            "apiVersion": "tensorboard.kubeflow.org/v1alpha1",
            "kind": "Tensorboard",
            "metadata": meta,
            "spec": {"logspath": logspath},
        }
        return [Manifest("Tensorboard", name, body)]
    deployment_spec, service_spec = _SPECS.get(
        spec, lambda: _new_specs(board, source, labels)
    )
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta,
        "spec": deployment_spec,
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta,
        "spec": service_spec,
    }
    return [
        Manifest("Deployment", name, deployment),
        Manifest("Service", name, service),
    ]


def tensorboard_pods(spec: JobSpec) -> tuple[int, dict[str, Any]]:
    """The replicas and pod of the Deployment kgen renders for the job's TensorBoard,
    or (0, {}). Kubeflow's Tensorboard has its controller make the pod, whose requests
    kgen cannot know."""
    board = spec.tensorboard
    if board is None or board.kind == "kubeflow":
        return 0, {}
    source = _SOURCES.get(spec, lambda: tensorboard_source(spec))
    if source is None:
        return 0, {}
    labels = _labels(tensorboard_name(spec.name))
    deployment, _ = _SPECS.get(spec, lambda: _new_specs(board, source, labels))
    return int(deployment["replicas"]), deployment["template"]["spec"]


def _labels(name: str) -> dict[str, str]:
    return {"app.kubernetes.io/name": "tensorboard", "app.kubernetes.io/instance": name}


def _new_specs(
    board: TensorBoard, source: LogSource, labels: dict[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    selector = dict(sorted(labels.items()))
    container: dict[str, Any] = {
        "name": "tensorboard",
        "image": board.image or TENSORBOARD_IMAGE,
        "command": ["tensorboard"],
        "args": [f"--logdir={board.log_dir}", "--bind_all", f"--port={PORT}"],
        "ports": [{"name": "http", "containerPort": PORT, "protocol": "TCP"}],
    }
    resources = {
        k: v.model_dump(by_alias=True, exclude_none=True)
        for k, v in (("limits", board.limits), ("requests", board.requests))
        if v
    }
    if resources:
        container["resources"] = resources
    container["volumeMounts"] = [mount(source.volume, read_only=True)]
    volume = {
        "name": source.volume.name,
        "persistentVolumeClaim": {"claimName": source.volume.claim, "readOnly": True},
    }
    deployment = {
        "replicas": 1,
        "selector": {"matchLabels": selector},
        "template": {
            "metadata": {"labels": selector},
            "spec": {"containers": [container], "volumes": [volume]},
        },
    }
    service = {
        "type": board.service_type,
        "selector": selector,
        "ports": [
            {"name": "http", "port": PORT, "targetPort": "http", "protocol": "TCP"}
        ],
    }
    return shared(deployment), shared(service)
