"""The MPIJob problem codes, with the paragraph docs/rules.md and SARIF show."""

from __future__ import annotations

from kgen.rules.info import RuleInfo, rule

CATALOG: tuple[RuleInfo, ...] = (
    rule(
        "mpi-launcher-replicas",
        "error",
        False,
        "An MPIJob launcher with other than 1 replica",
        "Both operators run exactly one launcher; mpi-operator rejects any other count without a word on the job's status.",
    ),
    rule(
        "mpi-no-launcher",
        "error",
        False,
        "An MPIJob without a launcher",
        "The launcher runs mpirun; both operators refuse a job without one, and neither says so on the job's status (an event only), so it waits forever.",
    ),
    rule(
        "mpi-worker-command",
        "error",
        False,
        "MPIJob workers that would run the job's command",
        "A job-wide command or args run on every role, but MPI workers must start sshd (mpi-operator's default) or sleep (MPIJob v1) for the launcher to reach them. Set the command on roles.launcher, or give roles.worker its own.",
    ),
    rule(
        "mpi-restart-policy",
        "error",
        False,
        "A restart policy mpi-operator rejects",
        "mpi-operator accepts Never or OnFailure only; any other is a validation event, never a status condition, and the job never starts.",
    ),
    rule(
        "mpi-launcher-gpu-hidden",
        "error",
        False,
        "GPUs on an mpi-operator launcher that it hides",
        "mpi-operator sets NVIDIA_VISIBLE_DEVICES to empty on the launcher unless runLauncherAsWorker is true, so GPUs asked for it are held and never used.",
    ),
)
