"""The environment training-operator gives each XGBoostJob pod (`kgen explain`), in
every container, after the user's (kubeflow/training-operator
pkg/controller.v1/xgboost/xgboost.go `SetPodEnv`; read in the 1.4-1.6 line, which no
later changelog entry touches)."""

from __future__ import annotations

from kgen.kinds.base import Replica
from kgen.kinds.xgboost import KIND
from kgen.kinds.xgboost.spec import own
from kgen.render.base import Environment
from kgen.spec.job import JobSpec, role_items

PORT = str(KIND.port)


def replicas(spec: JobSpec, env: Environment) -> list[Replica]:
    job = own(spec)
    roles = role_items(job)
    world = sum(role.replicas for _, role in roles)
    masters = job.roles.master.replicas if job.roles.master else 0
    out = []
    for role, settings in roles:
        for index in range(settings.replicas):
            rank = index if role == "master" else index + masters
            variables = {
                "MASTER_PORT": PORT,
                "MASTER_ADDR": f"{job.name}-master-0",
                "WORLD_SIZE": str(world),
                "RANK": str(rank),
                "PYTHONUNBUFFERED": "0",
            }
            if world > 1:
                # The operator lists WORLD_SIZE - 1 workers, assuming one master.
                workers = [f"{job.name}-worker-{i}" for i in range(world - 1)]
                variables |= {"WORKER_PORT": PORT, "WORKER_ADDRS": ",".join(workers)}
            out.append(Replica(f"{job.name}-{role}-{index}", variables))
    return out
