"""PyTorchJob for every API target (kubeflow-api.md §2, §3.3)."""

from __future__ import annotations

from typing import Any

from kgen.errors import Problem
from kgen.models import PyTorchJobSpec, role_items
from kgen.render.base import Environment, Manifest, object_meta
from kgen.render.pod import pod_template
from kgen.render.runpolicy import cannot_express, place_run_policy

CONTAINER = "pytorch"
PORT_NAME = "pytorchjob-port"
PORT = 23456
DEFAULT_RESTART = "OnFailure"


def render_pytorchjob(
    spec: PyTorchJobSpec, env: Environment
) -> tuple[list[Manifest], list[Problem]]:
    target = env.target
    problems: list[Problem] = []
    body_spec: dict[str, Any] = {}
    problems += place_run_policy(
        body_spec,
        spec.run_policy,
        clean_pod_policy=spec.run_policy.clean_pod_policy or "None",
        target=target,
    )
    nproc = nproc_per_node(spec)
    if target.nproc_per_node:
        body_spec["nprocPerNode"] = nproc
    elif spec.nproc_per_node is not None:
        problems.append(cannot_express(("nprocPerNode",), target))
    if target.pytorch_needs_master and spec.roles.master is None:
        problems.append(
            Problem(
                f"API target {target.name} requires a master role ({target.description})",
                "target-needs-master",
                path=("roles",),
                at_key=True,
                hint="worker-only PyTorchJobs need training-operator 1.4 or later (target v1)",
            )
        )
    template = pod_template(
        spec, container_name=CONTAINER, port_name=PORT_NAME, port=PORT
    )
    body_spec["pytorchReplicaSpecs"] = {
        role.capitalize(): {
            "replicas": settings.replicas,
            "restartPolicy": settings.restart_policy or DEFAULT_RESTART,
            "template": template,
        }
        for role, settings in role_items(spec)
    }
    body = {
        "apiVersion": target.api_version,
        "kind": "PyTorchJob",
        "metadata": object_meta(
            spec.name, env, labels=spec.labels, annotations=spec.annotations
        ),
        "spec": body_spec,
    }
    return [Manifest("PyTorchJob", spec.name, body)], problems


def nproc_per_node(spec: PyTorchJobSpec) -> str:
    """An explicit process count per pod: never the operator's `auto` by accident.

    torchrun's `auto` starts one process per CPU on a CPU node (kubeflow-api.md §3.3).
    """
    if spec.nproc_per_node is not None:
        return spec.nproc_per_node
    return str(spec.resources.gpu) if spec.resources.gpu else "1"
