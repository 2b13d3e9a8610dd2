"""The MPIJob spec: `launcher` (exactly 1) and `worker` roles, ranks per worker, and
mpi-operator's own settings (implementation, ssh, launcher start)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from kgen.kinds.mpi import KIND, LAUNCHER, WORKER
from kgen.spec.base import SpecModel
from kgen.spec.fields import AbsolutePath, Count
from kgen.spec.job import JobSpec, Role, framework_field, role_field

Implementation = Literal["OpenMPI", "Intel", "MPICH"]


class MPIRoles(SpecModel):
    """MPIJob roles."""

    launcher: Role | None = role_field(LAUNCHER)
    worker: Role | None = role_field(WORKER)


class MPIJobSpec(JobSpec):
    """An MPIJob: a `launcher` (exactly 1) running mpirun and `worker` hosts."""

    framework: Literal["mpi"] = framework_field(KIND)
    roles: MPIRoles = Field(
        description="Replica types and their pod counts.",
        examples=[{"launcher": {"replicas": 1}, "worker": {"replicas": 2}}],
    )
    slots_per_worker: Count | None = Field(
        None,
        description="MPI ranks per worker (hostfile slots). Default: the worker's GPUs, else 1.",
        examples=[8],
    )
    run_launcher_as_worker: bool | None = Field(
        None,
        description="The launcher also hosts ranks and keeps its GPUs (target mpi-operator; default false).",
        examples=[True],
    )
    mpi_implementation: Implementation | None = Field(
        None,
        description="The MPI the image runs, which decides the hostfile format and env (target mpi-operator; default OpenMPI).",
        examples=["Intel"],
    )
    ssh_auth_mount_path: AbsolutePath | None = Field(
        None,
        description="Where the operator mounts the generated ssh key (target mpi-operator; default /root/.ssh).",
        examples=["/home/mpiuser/.ssh"],
    )
    launcher_creation_policy: Literal["AtStartup", "WaitForWorkersReady"] | None = (
        Field(
            None,
            description="Create the launcher at once or once every worker is ready (target mpi-operator; default AtStartup).",
            examples=["WaitForWorkersReady"],
        )
    )


MODEL = MPIJobSpec
ROLES = MPIRoles
REFERENCE: list[tuple[str, type[BaseModel]]] = []
TYPE_NAMES: dict[Any, str] = {}


def own(spec: JobSpec) -> MPIJobSpec:
    """`spec` as the MPIJob spec the registry picked it for."""
    assert isinstance(spec, MPIJobSpec)
    return spec


def scale_limit(spec: JobSpec) -> int | None:
    """No MPIJob role scales."""
    return None


def slots(spec: MPIJobSpec) -> int:
    """Ranks per worker: as set, else one per GPU of a worker, else 1 (one rank per
    GPU is how Horovod and DeepSpeed run; the operators default to 1)."""
    if spec.slots_per_worker is not None:
        return spec.slots_per_worker
    worker = spec.roles.worker
    override = worker.resources.gpu if worker and worker.resources else None
    gpus = override if override is not None else spec.resources.gpu
    return gpus or 1
