"""PyTorchJob for every API target (kubeflow-api.md §2, §3.3, §6.2)."""

from __future__ import annotations

from typing import Any

from kgen.errors import Problem
from kgen.render.base import Environment, Manifest, job_manifest
from kgen.render.pod import replica_specs
from kgen.render.runpolicy import cannot_express, place_run_policy, supported
from kgen.spec.job import PyTorchJobSpec, role_items

CONTAINER = "pytorch"
PORT_NAME = "pytorchjob-port"
PORT = 23456
DEFAULT_RESTART = "OnFailure"
ROLE_KEYS = {"master": "Master", "worker": "Worker"}


def render_pytorchjob(
    spec: PyTorchJobSpec, env: Environment
) -> tuple[list[Manifest], list[Problem]]:
    target = env.target
    body_spec: dict[str, Any] = {}
    problems = place_run_policy(
        body_spec,
        spec.run_policy,
        clean_pod_policy=spec.run_policy.clean_pod_policy or "None",
        target=target,
    )
    if spec.elastic_policy is not None:
        if supported(("elasticPolicy",), target):
            body_spec["elasticPolicy"] = elastic_policy(spec)
        else:
            problems.append(cannot_express(("elasticPolicy",), target))
    if supported(("nprocPerNode",), target):
        body_spec["nprocPerNode"] = nproc_per_node(spec)
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
    body_spec["pytorchReplicaSpecs"] = replica_specs(
        spec,
        ROLE_KEYS,
        container=CONTAINER,
        port_name=PORT_NAME,
        port=PORT,
        default_restart=DEFAULT_RESTART,
    )
    return [job_manifest("PyTorchJob", spec, env, body_spec)], problems


def nproc_per_node(spec: PyTorchJobSpec) -> str:
    """An explicit process count per pod: never the operator's `auto` by accident.

    torchrun's `auto` starts one process per CPU on a CPU node (kubeflow-api.md §3.3).
    """
    if spec.nproc_per_node is not None:
        return spec.nproc_per_node
    gpus = [spec.resources.gpu] + [
        r.resources.gpu for _, r in role_items(spec) if r.resources and r.resources.gpu
    ]
    return str(max(gpus)) if max(gpus) else "1"


def elastic_policy(spec: PyTorchJobSpec) -> dict[str, Any]:
    """min/max and the backend explicit (§3.3); `standalone` is never offered: the operator
    sets PET_STANDALONE to "", which torchrun cannot parse (§6.2)."""
    policy = spec.elastic_policy
    assert policy is not None
    workers = spec.roles.worker.replicas if spec.roles.worker else 1
    out: dict[str, Any] = {
        "minReplicas": policy.min_replicas or workers,
        "maxReplicas": policy.max_replicas or workers,
        "rdzvBackend": policy.rdzv_backend,
    }
    conf = [c.model_dump() for c in policy.rdzv_conf] if policy.rdzv_conf else None
    optional = (
        ("rdzvPort", policy.rdzv_port),
        ("rdzvHost", policy.rdzv_host),
        ("rdzvId", policy.rdzv_id),
        ("rdzvConf", conf),
        ("maxRestarts", policy.max_restarts),
        ("metrics", policy.metrics),
    )
    return out | {key: value for key, value in optional if value is not None}
