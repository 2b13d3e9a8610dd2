"""The environment training-operator gives each JAXJob pod (`kgen explain`), in every
container, after the user's (kubeflow/training-operator@v1.9.x:
pkg/controller.v1/jax/envvar.go `setPodEnv`)."""

from __future__ import annotations

from kgen.kinds.base import Replica, shown_indices
from kgen.kinds.jax import KIND
from kgen.kinds.jax.spec import own
from kgen.render.base import Environment
from kgen.spec.job import JobSpec, role_items


def replicas(
    spec: JobSpec, env: Environment, name: str, limit: int | None = None
) -> list[Replica]:
    job = own(spec)
    roles = role_items(job)
    total = sum(role.replicas for _, role in roles)
    out = []
    for role, settings in roles:
        for index, skipped in shown_indices(settings.replicas, limit):
            variables = {
                "PYTHONUNBUFFERED": "1",
                "COORDINATOR_PORT": str(KIND.port),
                "COORDINATOR_ADDRESS": f"{name}-worker-0",
                "NUM_PROCESSES": str(total),
                "PROCESS_ID": str(index),
            }
            out.append(Replica(f"{name}-{role}-{index}", variables, skipped=skipped))
    return out
