"""The environment training-operator gives each PaddleJob pod (`kgen explain`), in
every container, after the user's (kubeflow/training-operator@v1.9.x:
pkg/controller.v1/paddlepaddle/envvar.go `setPodEnv`).

Rank 0 (master 0 with a master, else worker 0) reaches itself by its pod IP, which the
operator passes as POD_IP_DUMMY from the pod's status.podIP. The port is rank 0's role's
port named `master` (`getPortFromPaddleJob`), 36543 unless the job moves it.
"""

from __future__ import annotations

from kgen.kinds.base import Replica, shown_indices
from kgen.kinds.paddle import KIND
from kgen.kinds.paddle.spec import own
from kgen.render.base import Environment
from kgen.render.roles import role_settings
from kgen.spec.job import JobSpec, role_items

POD_IP = "(the pod's status.podIP)"


def replicas(
    spec: JobSpec, env: Environment, name: str, limit: int | None = None
) -> list[Replica]:
    job = own(spec)
    roles = role_items(job)
    total = sum(role.replicas for _, role in roles)
    first = "master" if job.roles.master is not None else "worker"
    port = KIND.port
    for role, settings in roles:
        if role == first:
            port = role_settings(job, role, settings).port(KIND.port_name, port)
    out = []
    for role, settings in roles:
        for index, skipped in shown_indices(settings.replicas, limit):
            variables = {
                "PYTHONUNBUFFERED": "1",
                "PADDLE_JOB_ID": name,
                "PADDLE_NNODES": str(total),
            }
            if role == first and index == 0:
                variables["POD_IP_DUMMY"] = POD_IP
                variables["PADDLE_MASTER"] = f"$(POD_IP_DUMMY):{port}"
            else:
                variables["PADDLE_MASTER"] = f"{name}-{first}-0:{port}"
            if job.roles.master is not None:
                count = (
                    "PADDLE_SERVER_NUM" if role == "master" else "PADDLE_TRAINER_NUM"
                )
                variables[count] = "1"
            out.append(
                Replica(
                    f"{name}-{role}-{index}",
                    variables,
                    where="every container",
                    skipped=skipped,
                )
            )
    return out
