"""The environment training-operator gives each PyTorchJob pod (kubeflow-api.md §6), so
a user can check ranks and addresses before anything runs (`kgen explain`).

Target v1 follows training-operator 1.7-1.9; the other targets follow the older
operators (pytorch-operator, training-operator <= 1.3).
"""

from __future__ import annotations

from kgen.kinds.base import Replica
from kgen.kinds.pytorch import KIND
from kgen.kinds.pytorch.render import nproc_per_node
from kgen.kinds.pytorch.spec import PyTorchJobSpec, own
from kgen.render.base import Environment
from kgen.spec.job import JobSpec, role_items

PORT = KIND.port


def replicas(spec: JobSpec, env: Environment) -> list[Replica]:
    job = own(spec)
    total = sum(role.replicas for _, role in role_items(job))
    current = env.target.name == "v1"
    nproc = nproc_per_node(job) if current else "1"
    world = total * int(nproc) if nproc.isdigit() else total
    master = f"{job.name}-master-0"
    out = []
    for role, settings in role_items(job):
        for index in range(settings.replicas):
            pod = f"{job.name}-{role}-{index}"
            rank = 0 if role == "master" else index + 1
            if current:
                variables = _current(
                    job,
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
                    "MASTER_PORT": str(PORT),
                    "WORLD_SIZE": str(total),
                    "RANK": str(rank),
                    "PYTHONUNBUFFERED": "0",
                }
            out.append(Replica(pod, variables))
    return out


def _current(
    spec: PyTorchJobSpec, *, rank: int, world: int, total: int, nproc: str, master: str
) -> dict[str, str]:
    variables = {"PYTHONUNBUFFERED": "1"}
    if spec.roles.master is not None:
        port = str(PORT)
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
        "PET_RDZV_ENDPOINT": f"{host}:{policy.rdzv_port or PORT}",
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
