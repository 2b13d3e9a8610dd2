"""PyTorchJob's spec for every API target (kubeflow-api.md §2, §3.3, §6.2)."""

from __future__ import annotations

from typing import Any

from kgen.errors import Problem
from kgen.kinds.pytorch import KIND, WORKER_ONLY
from kgen.kinds.pytorch.spec import PyTorchJobSpec, own
from kgen.kinds.targets import ApiTarget
from kgen.render.base import Environment
from kgen.render.pod import replica_specs
from kgen.render.runpolicy import cannot_express, place_run_policy
from kgen.spec.job import JobSpec, role_items


def render(spec: JobSpec, env: Environment) -> tuple[dict[str, Any], list[Problem]]:
    job = own(spec)
    target = env.target
    body_spec: dict[str, Any] = {}
    problems = place_run_policy(body_spec, job, KIND, target)
    if job.elastic_policy is not None:
        if KIND.supports("elasticPolicy", target):
            body_spec["elasticPolicy"] = elastic_policy(job)
        else:
            problems.append(cannot_express(("elasticPolicy",), target))
    if KIND.supports("nprocPerNode", target):
        body_spec["nprocPerNode"] = nproc_per_node(job)
    elif job.nproc_per_node is not None:
        problems.append(cannot_express(("nprocPerNode",), target))
    # No roles at all is pytorch-no-roles; saying the target needs a master adds nothing.
    worker_only = job.roles.master is None and job.roles.worker is not None
    if worker_only and target.name not in WORKER_ONLY:
        problems.append(_needs_master(target))
    body_spec[KIND.replica_key] = replica_specs(job, KIND)
    return body_spec, problems


def _needs_master(target: ApiTarget) -> Problem:
    if target.release is not None:
        message = f"{target.release_name} requires a master role (worker-only PyTorchJobs arrived in 1.4)"
    else:
        message = (
            f"API target {target.name} requires a master role ({target.description})"
        )
    return Problem(
        message,
        "target-needs-master",
        path=("roles",),
        at_key=True,
        hint="worker-only PyTorchJobs need training-operator 1.4 or later (target training-operator-1.4)",
    )


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


def live_pointers(spec: JobSpec) -> list[str]:
    """Worker replicas change under the HPA that elasticPolicy.metrics asks for."""
    policy = own(spec).elastic_policy
    if policy is None or not policy.metrics:
        return []
    return [f"/spec/{KIND.replica_key}/{KIND.role('worker').key}/replicas"]
