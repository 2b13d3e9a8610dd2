"""The environment the training operator gives each replica (kubeflow-api.md §6), so a
user can check ranks and addresses before anything runs.

PyTorch follows training-operator 1.7-1.9 for target v1 and the older operators
(pytorch-operator, training-operator <= 1.3) for the other targets; TF_CONFIG has one
format throughout.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from kgen.render import Environment
from kgen.render.pytorchjob import PORT as PYTORCH_PORT
from kgen.render.pytorchjob import nproc_per_node
from kgen.render.tfjob import PORT as TF_PORT
from kgen.spec.job import JobSpec, PyTorchJobSpec, TFJobSpec, role_items


@dataclass(frozen=True)
class Replica:
    """One pod the operator will create, and the variables it injects."""

    pod: str
    env: dict[str, str]


def replicas(spec: JobSpec, env: Environment) -> list[Replica]:
    if isinstance(spec, PyTorchJobSpec):
        return _pytorch(spec, env)
    assert isinstance(spec, TFJobSpec)
    return _tensorflow(spec, env)


def _pytorch(spec: PyTorchJobSpec, env: Environment) -> list[Replica]:
    total = sum(role.replicas for _, role in role_items(spec))
    current = env.target.name == "v1"
    nproc = nproc_per_node(spec) if current else "1"
    world = total * int(nproc) if nproc.isdigit() else total
    master = f"{spec.name}-master-0"
    out = []
    for role, settings in role_items(spec):
        for index in range(settings.replicas):
            pod = f"{spec.name}-{role}-{index}"
            rank = 0 if role == "master" else index + 1
            if current:
                variables = _pytorch_current(
                    spec,
                    rank=rank,
                    world=world,
                    total=total,
                    nproc=nproc,
                    master=master,
                )
            else:
                # pytorch-operator and training-operator <= 1.3: the master reaches itself
                # at localhost, and PYTHONUNBUFFERED was 0.
                address = "localhost" if role == "master" else master
                variables = {
                    "MASTER_ADDR": address,
                    "MASTER_PORT": str(PYTORCH_PORT),
                    "WORLD_SIZE": str(total),
                    "RANK": str(rank),
                    "PYTHONUNBUFFERED": "0",
                }
            out.append(Replica(pod, variables))
    return out


def _pytorch_current(
    spec: PyTorchJobSpec, *, rank: int, world: int, total: int, nproc: str, master: str
) -> dict[str, str]:
    variables = {"PYTHONUNBUFFERED": "1"}
    if spec.roles.master is not None:
        port = str(PYTORCH_PORT)
        variables |= {
            "MASTER_ADDR": master,
            "PET_MASTER_ADDR": master,
            "MASTER_PORT": port,
            "PET_MASTER_PORT": port,
            "WORLD_SIZE": str(world),
            "RANK": str(rank),
            "PET_NODE_RANK": str(rank),
        }
    variables["PET_NPROC_PER_NODE"] = nproc
    policy = spec.elastic_policy
    if policy is None:
        variables["PET_NNODES"] = str(total)
        return variables
    workers = spec.roles.worker.replicas if spec.roles.worker else 0
    low, high = policy.min_replicas or workers, policy.max_replicas or workers
    host = policy.rdzv_host or f"{spec.name}-worker-0"
    variables |= {
        "PET_NNODES": f"{low}:{high}",
        "PET_RDZV_ENDPOINT": f"{host}:{policy.rdzv_port or PYTORCH_PORT}",
        "PET_RDZV_BACKEND": policy.rdzv_backend,
    }
    if policy.rdzv_id:
        variables["PET_RDZV_ID"] = policy.rdzv_id
    if policy.rdzv_conf:
        variables["PET_RDZV_CONF"] = ",".join(
            f"{c.key}={c.value}" for c in policy.rdzv_conf
        )
    if policy.max_restarts is not None:
        variables["PET_MAX_RESTARTS"] = str(policy.max_restarts)
    return variables


def _tensorflow(spec: TFJobSpec, env: Environment) -> list[Replica]:
    roles = role_items(spec)
    total = sum(role.replicas for _, role in roles)
    namespace = env.namespace or "<namespace>"
    cluster = {
        role: [
            f"{spec.name}-{role}-{i}.{namespace}.svc:{TF_PORT}"
            for i in range(settings.replicas)
        ]
        for role, settings in sorted(roles)
    }
    out = []
    for role, settings in roles:
        for index in range(settings.replicas):
            variables = {}
            # A single-replica job gets no TF_CONFIG at all (isDistributed).
            if total != 1:
                variables["TF_CONFIG"] = tf_config(
                    cluster, role, index, sparse=bool(spec.enable_dynamic_worker)
                )
            out.append(Replica(f"{spec.name}-{role}-{index}", variables))
    return out


def tf_config(
    cluster: dict[str, list[str]], role: str, index: int, *, sparse: bool
) -> str:
    """TF_CONFIG as the operator marshals it: compact JSON, cluster keys sorted."""
    task = {"type": role, "index": index}
    if not sparse:
        return json.dumps(
            {"cluster": cluster, "task": task, "environment": "cloud"},
            separators=(",", ":"),
        )
    # enableDynamicWorker: each worker sees only itself; chief and evaluator no workers.
    workers = {str(index): cluster["worker"][index]} if role == "worker" else {}
    sparse_cluster: dict[str, object] = {"worker": workers, "ps": cluster.get("ps", [])}
    return json.dumps({"cluster": sparse_cluster, "task": task}, separators=(",", ":"))
