"""The environment the operator gives each PyTorchJob pod, per operator release, so a
user can check ranks and addresses before anything runs (`kgen explain`).

docs/env-contract.md writes it out with the upstream file each case mirrors. Every
release injects into every container of the pod, after the user's own env, in the
order below. Three contracts:

- pytorch-operator 0.x and training-operator 1.3 (targets v1beta1, v1beta2, v1-legacy,
  training-operator-1.3; kubeflow/pytorch-operator@v0.7.0:pkg/controller.v1/pytorch/pod.go
  `setClusterSpec`): MASTER_PORT, MASTER_ADDR, WORLD_SIZE, RANK, PYTHONUNBUFFERED=0;
  the master reaches itself at localhost. For 1.3 the sources leave this unverified
  (trainer#1358 reports the master getting its own service name and RANK 1 on the
  unified operator before 1.3.0); kgen follows the reference document (localhost).
- training-operator 1.4 to 1.6 (kubeflow/training-operator@v1.6.0:
  pkg/controller.v1/pytorch/envvar.go `setPodEnv`): PYTHONUNBUFFERED=0, then with a
  master MASTER_PORT, MASTER_ADDR, WORLD_SIZE (the number of pods), RANK; then the
  elastic group. No PET_MASTER_*, PET_NODE_RANK or PET_NPROC_PER_NODE.
- training-operator 1.7 and later (kubeflow/training-operator@v1.9.x: envvar.go,
  master.go, elastic.go): PYTHONUNBUFFERED=1, then with a master MASTER_PORT,
  PET_MASTER_PORT, MASTER_ADDR, PET_MASTER_ADDR, WORLD_SIZE (pods x nprocPerNode),
  RANK, PET_NPROC_PER_NODE (on 1.7.0 inside the master branch only, as trainer#1840
  added it), PET_NODE_RANK; then the elastic group, or PET_NNODES. The value 1 of
  PYTHONUNBUFFERED came with trainer#1860 (merged after 1.7.0-rc.0): unverified for
  1.7.0 itself, kgen follows the reference document. From 1.8 (trainer#1948, opened
  after the v1.7.0 tag, in the v1.7.0...v1.8.0 changelog) every pod gets
  PET_NPROC_PER_NODE, as kubeflow-api.md §6.2 says, a worker-only elastic job's too,
  appended after the master branch: behind PET_NODE_RANK (the #1948 diff), which only
  `kgen explain`'s order shows.

Host names use the job object's real name (`job.Name`): a runId or content-hash suffix
is part of every address. Ports are read from the pods, as every release's
`GetPortFromPyTorchJob` does (kubeflow-api.md §6.2): MASTER_PORT is the master's port
named pytorchjob-port, the rendezvous port the worker's, so a job that moves that port
moves them (23456 when it does not).
"""

from __future__ import annotations

from kgen.kinds.base import Replica, shown_indices
from kgen.kinds.pytorch import KIND
from kgen.kinds.pytorch.render import nproc_per_node
from kgen.kinds.pytorch.spec import PyTorchJobSpec, own
from kgen.render.base import Environment
from kgen.render.roles import role_settings
from kgen.spec.job import JobSpec, Role, role_items

EVERY_CONTAINER = "every container"


def replicas(
    spec: JobSpec, env: Environment, name: str, limit: int | None = None
) -> list[Replica]:
    job = own(spec)
    total = sum(role.replicas for _, role in role_items(job))
    release = env.target.release
    master_port = _port(job, "master", job.roles.master)
    out = []
    for role, settings in role_items(job):
        for index, skipped in shown_indices(settings.replicas, limit):
            rank = 0 if role == "master" else index + 1
            if release is None or release < (1, 4):
                variables = _operator(name, role, rank, total, master_port)
            elif release < (1, 7):
                variables = _release_1_4(job, name, rank, total, master_port)
            else:
                every = release >= (1, 8)
                variables = _release_1_7(job, name, rank, total, master_port, every)
            pod = f"{name}-{role}-{index}"
            out.append(Replica(pod, variables, where=EVERY_CONTAINER, skipped=skipped))
    return out


def _port(job: PyTorchJobSpec, name: str, role: Role | None) -> str:
    """The containerPort of the role's port named pytorchjob-port (the operator finds
    it by name, kubeflow-api.md §2.4), 23456 when the job does not move it."""
    if role is None:
        return str(KIND.port)
    return str(role_settings(job, name, role).port(KIND.port_name, KIND.port))


def _operator(name: str, role: str, rank: int, total: int, port: str) -> dict[str, str]:
    # The master reaches itself at localhost.
    address = "localhost" if role == "master" else f"{name}-master-0"
    return {
        "MASTER_PORT": port,
        "MASTER_ADDR": address,
        "WORLD_SIZE": str(total),
        "RANK": str(rank),
        "PYTHONUNBUFFERED": "0",
    }


def _release_1_4(
    job: PyTorchJobSpec, name: str, rank: int, total: int, port: str
) -> dict[str, str]:
    variables = {"PYTHONUNBUFFERED": "0"}
    if job.roles.master is not None:
        variables |= {
            "MASTER_PORT": port,
            "MASTER_ADDR": f"{name}-master-0",
            "WORLD_SIZE": str(total),
            "RANK": str(rank),
        }
    return variables | _elastic(job, name)


def _release_1_7(
    job: PyTorchJobSpec, name: str, rank: int, total: int, port: str, every: bool
) -> dict[str, str]:
    """`every`: PET_NPROC_PER_NODE in every pod, after the master branch (1.8,
    trainer#1948); before, inside it between RANK and PET_NODE_RANK (1.7.0)."""
    variables = {"PYTHONUNBUFFERED": "1"}
    nproc = nproc_per_node(job)
    if job.roles.master is not None:
        world = total * int(nproc) if nproc.isdigit() else total
        master = f"{name}-master-0"
        variables |= {
            "MASTER_PORT": port,
            "PET_MASTER_PORT": port,
            "MASTER_ADDR": master,
            "PET_MASTER_ADDR": master,
            "WORLD_SIZE": str(world),
            "RANK": str(rank),
        }
        if not every:
            variables["PET_NPROC_PER_NODE"] = nproc
        variables["PET_NODE_RANK"] = str(rank)
    if every:
        variables["PET_NPROC_PER_NODE"] = nproc
    if job.elastic_policy is None:
        return variables | {"PET_NNODES": str(total)}
    return variables | _elastic(job, name)


def _elastic(job: PyTorchJobSpec, name: str) -> dict[str, str]:
    """elastic.go `ElasticEnvVarGenerator.Generate`, in its order; PET_STANDALONE never
    (kgen does not offer `standalone`: torchrun cannot parse the "" it gets). The
    endpoint's port is rdzvPort, else the worker's pytorchjob-port."""
    policy = job.elastic_policy
    if policy is None:
        return {}
    workers = job.roles.worker.replicas if job.roles.worker else 0
    low, high = policy.min_replicas or workers, policy.max_replicas or workers
    host = policy.rdzv_host or f"{name}-worker-0"
    port = policy.rdzv_port or _port(job, "worker", job.roles.worker)
    variables = {
        "PET_RDZV_ENDPOINT": f"{host}:{port}",
        "PET_RDZV_BACKEND": policy.rdzv_backend,
        "PET_NNODES": f"{low}:{high}",
    }
    if policy.max_restarts is not None:
        variables["PET_MAX_RESTARTS"] = str(policy.max_restarts)
    if policy.rdzv_id:
        variables["PET_RDZV_ID"] = policy.rdzv_id
    if policy.rdzv_conf:
        variables["PET_RDZV_CONF"] = ",".join(
            f"{c.key}={c.value}" for c in policy.rdzv_conf
        )
    return variables
