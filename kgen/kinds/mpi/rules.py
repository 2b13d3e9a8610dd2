"""Rules of an MPIJob spec: a launcher must exist, and workers must not inherit the
launcher's command. (One launcher is RoleDef data, checked with every kind's roles in
kgen.rules.spec.)"""

from __future__ import annotations

from collections.abc import Iterator

from kgen.errors import Problem
from kgen.kinds.mpi.spec import own
from kgen.rules.context import Rule, RuleContext
from kgen.rules.reads import reads
from kgen.spec.job import JobSpec


@reads("roles")
def _launcher(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    # Neither operator has a webhook for MPIJob: a job without a launcher is only a
    # Warning event and waits forever (mpi-operator validation.go; training-operator
    # mpi_validation.go "Master ReplicaSpec must be present").
    if own(spec).roles.launcher is None:
        yield Problem(
            "an MPIJob needs a launcher role to run mpirun",
            "mpi-no-launcher",
            path=("roles",),
            at_key=True,
            hint="add roles.launcher with replicas: 1 and the mpirun command",
        )


@reads("roles", "command", "args")
def _worker_command(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    """The operators start a worker's sshd (mpi-operator) or sleep (MPIJob v1) only
    when its container has neither command nor args (newWorker)."""
    job = own(spec)
    worker = job.roles.worker
    if worker is None or worker.command is not None or worker.args is not None:
        return
    for key, value in (("command", job.command), ("args", job.args)):
        if value is not None:
            yield Problem(
                f"the job's {key} would run on the MPI workers too, which must wait for the launcher instead",
                "mpi-worker-command",
                path=(key,),
                at_key=True,
                hint=f"move it to roles.launcher.{key}, or give roles.worker a command of its own",
            )


RULES: tuple[Rule, ...] = (_launcher, _worker_command)
