"""The environment the operator gives each MPIJob pod (`kgen explain`, and the
operator-env rule: kgen.render.operator_env).

Both operators append to the first container only (`container.Env = append(
container.Env, ...)` on `Containers[0]`), after its own env, so a variable of the job of
the same name is overridden; sidecars and init containers get nothing.

Target mpi-operator: kubeflow/mpi-operator@v0.8.0:pkg/controller/mpi_job_controller.go
(`newLauncherPodTemplate`, `newWorker`). Target v1 and training-operator-1.4 to -1.9:
kubeflow/training-operator@v1.9.4:pkg/controller.v1/mpi/mpijob_controller.go
(`newLauncher`; workers get none). From 1.7 (#1804) the launcher also gets Intel MPI's
bootstrap, each variable only when the container lacks it (`hasIntelMPIBootstrapValues`):
a job's own is kept (`Replica.if_absent`).
"""

from __future__ import annotations

from kgen.kinds.base import Replica, shown_indices
from kgen.kinds.mpi import V2
from kgen.kinds.mpi.spec import MPIJobSpec, own, slots
from kgen.render.base import Environment
from kgen.render.roles import role_settings
from kgen.spec.job import JobSpec

HOSTFILE = "/etc/mpi/hostfile"
KUBEXEC = "/etc/mpi/kubexec.sh"
SSH_RETRIES = "-o ConnectionAttempts=10"
NO_GPUS = {"NVIDIA_VISIBLE_DEVICES": "", "NVIDIA_DRIVER_CAPABILITIES": ""}
V1_WORKER = "training-operator gives MPIJob v1 workers no variables"
FIRST_CONTAINER = "first container"
BOOTSTRAP_EXEC = "I_MPI_HYDRA_BOOTSTRAP_EXEC"


def replicas(
    spec: JobSpec, env: Environment, name: str, limit: int | None = None
) -> list[Replica]:
    job = own(spec)
    v2 = env.target.name in V2
    out = []
    if job.roles.launcher is not None:
        launcher = _v2_launcher(job) if v2 else _v1_launcher(job, env)
        kept = frozenset({BOOTSTRAP_EXEC} & launcher.keys())
        pod = f"{name}-launcher"
        out.append(Replica(pod, launcher, where=FIRST_CONTAINER, if_absent=kept))
    workers = job.roles.worker.replicas if job.roles.worker else 0
    for index, skipped in shown_indices(workers, limit):
        pod = f"{name}-worker-{index}"
        if v2:
            variables = {"K_MPI_JOB_ROLE": "worker"}
            out.append(Replica(pod, variables, "", FIRST_CONTAINER, skipped))
        else:
            out.append(Replica(pod, {}, V1_WORKER, skipped=skipped))
    return out


def _v2_launcher(job: MPIJobSpec) -> dict[str, str]:
    variables = {"K_MPI_JOB_ROLE": "launcher"}
    slot_count = str(slots(job))
    implementation = job.mpi_implementation or "OpenMPI"
    if implementation == "OpenMPI":
        variables |= {
            "OMPI_MCA_orte_keep_fqdn_hostnames": "true",
            "OMPI_MCA_orte_default_hostfile": HOSTFILE,
            "OMPI_MCA_plm_rsh_args": SSH_RETRIES,
            "OMPI_MCA_orte_set_default_slots": slot_count,
        }
    elif implementation == "Intel":
        variables |= {
            "I_MPI_HYDRA_HOST_FILE": HOSTFILE,
            "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS": SSH_RETRIES,
            "I_MPI_PERHOST": slot_count,
        }
    else:
        variables |= {
            "HYDRA_HOST_FILE": HOSTFILE,
            "HYDRA_LAUNCH_EXTRA_ARGS": SSH_RETRIES,
        }
    if not job.run_launcher_as_worker:
        variables |= NO_GPUS
    return variables


def _v1_launcher(job: MPIJobSpec, env: Environment) -> dict[str, str]:
    """The launcher's GPUs stay visible only when it has some (`isGPULauncher`).

    training-operator 1.7 added Intel MPI's bootstrap (#1804), each only when the
    user's env lacks it; I_MPI_HYDRA_BOOTSTRAP's value is a constant of the operator's
    that is not shown here (the source read did not include it)."""
    release = env.target.release
    assert job.roles.launcher is not None
    settings = role_settings(job, "launcher", job.roles.launcher)
    variables = {
        "OMPI_MCA_plm_rsh_agent": KUBEXEC,
        "OMPI_MCA_orte_default_hostfile": HOSTFILE,
    }
    if not any("gpu" in key for key in settings.limits):
        variables |= NO_GPUS
    if release is not None and release < (1, 7):
        return variables
    if all(var.name != BOOTSTRAP_EXEC for var in settings.env):
        variables[BOOTSTRAP_EXEC] = KUBEXEC
    return variables
