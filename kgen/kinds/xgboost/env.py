"""The environment training-operator gives each XGBoostJob pod (`kgen explain`), in
every container, after the user's (kubeflow/training-operator
pkg/controller.v1/xgboost/xgboost.go `SetPodEnv`; read in the 1.4-1.6 line, which no
later changelog entry touches). MASTER_PORT is the master's port named
xgboostjob-port and WORKER_PORT the worker's (`getPortFromXGBoostJob`), 9999 unless the
job moves it."""

from __future__ import annotations

from kgen.kinds.base import Replica, shown_indices
from kgen.kinds.xgboost import KIND
from kgen.kinds.xgboost.spec import own
from kgen.render.base import Environment
from kgen.render.roles import role_settings
from kgen.spec.job import JobSpec, Role, role_items


def replicas(
    spec: JobSpec, env: Environment, name: str, limit: int | None = None
) -> list[Replica]:
    job = own(spec)
    roles = role_items(job)
    world = sum(role.replicas for _, role in roles)
    masters = job.roles.master.replicas if job.roles.master else 0
    # The operator lists WORLD_SIZE - 1 workers, assuming one master; the same list
    # goes to every pod, so a long one is shown once in full length only up to SHOWN.
    addresses = _addresses(name, world - 1)
    master_port = _port(job, "master", job.roles.master)
    worker_port = _port(job, "worker", job.roles.worker)
    out = []
    for role, settings in roles:
        for index, skipped in shown_indices(settings.replicas, limit):
            rank = index if role == "master" else index + masters
            variables = {
                "MASTER_PORT": master_port,
                "MASTER_ADDR": f"{name}-master-0",
                "WORLD_SIZE": str(world),
                "RANK": str(rank),
                "PYTHONUNBUFFERED": "0",
            }
            if world > 1:
                variables |= {"WORKER_PORT": worker_port, "WORKER_ADDRS": addresses}
            out.append(
                Replica(
                    f"{name}-{role}-{index}",
                    variables,
                    where="every container",
                    skipped=skipped,
                )
            )
    return out


SHOWN = 8


def _port(job: JobSpec, name: str, role: Role | None) -> str:
    if role is None:
        return str(KIND.port)
    return str(role_settings(job, name, role).port(KIND.port_name, KIND.port))


def _addresses(job: str, count: int) -> str:
    """WORKER_ADDRS, abbreviated past SHOWN names: in full, `kgen explain` of 10,000
    workers would print 10,000 copies of a 200 KB list."""
    if count <= SHOWN:
        return ",".join(f"{job}-worker-{i}" for i in range(count))
    return f"{job}-worker-0,{job}-worker-1,...,{job}-worker-{count - 1} ({count} names)"
