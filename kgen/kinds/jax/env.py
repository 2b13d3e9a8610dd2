"""The environment training-operator gives each JAXJob pod (`kgen explain`), in every
container, after the user's (kubeflow/training-operator@v1.9.x:
pkg/controller.v1/jax/envvar.go `setPodEnv`). COORDINATOR_PORT is worker 0's port
named jaxjob-port (`getPortFromJAXJob`), 6666 unless the job moves it."""

from __future__ import annotations

from kgen.kinds.base import Replica, shown_indices
from kgen.kinds.jax import KIND
from kgen.kinds.jax.spec import own
from kgen.render.base import Environment
from kgen.render.roles import role_settings
from kgen.spec.job import JobSpec, role_items


def replicas(
    spec: JobSpec, env: Environment, name: str, limit: int | None = None
) -> list[Replica]:
    job = own(spec)
    roles = role_items(job)
    total = sum(role.replicas for _, role in roles)
    port = KIND.port
    if job.roles.worker is not None:
        port = role_settings(job, "worker", job.roles.worker).port(KIND.port_name, port)
    out = []
    for role, settings in roles:
        for index, skipped in shown_indices(settings.replicas, limit):
            variables = {
                "PYTHONUNBUFFERED": "1",
                "COORDINATOR_PORT": str(port),
                "COORDINATOR_ADDRESS": f"{name}-worker-0",
                "NUM_PROCESSES": str(total),
                "PROCESS_ID": str(index),
            }
            out.append(
                Replica(
                    f"{name}-{role}-{index}",
                    variables,
                    where="every container",
                    skipped=skipped,
                )
            )
    return out
