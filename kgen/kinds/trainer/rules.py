"""Rules of a TrainJob spec: nodes to run, env the torch runtime owns, and torchrun.

The torch runtime gives each node only torchrun's PET_* variables
(kubeflow/trainer@v2.3.0: pkg/runtime/framework/plugins/torch/torch.go) and refuses a
TrainJob that sets them (pkg/constants/constants.go TorchRunReservedEnvNames)."""

from __future__ import annotations

from collections.abc import Iterator

from kgen.errors import Problem
from kgen.kinds.pytorch import TORCHRUN
from kgen.kinds.trainer import INSTALLED_RUNTIMES, LAUNCHER, NODE, RUNTIMES
from kgen.kinds.trainer.policy import (
    installed_policy,
    misspelled_runtime,
    policy,
    runtime_name,
)
from kgen.kinds.trainer.spec import own
from kgen.render.kueue import queued
from kgen.render.names import run_name
from kgen.rules.context import Rule, RuleContext
from kgen.rules.reads import reads
from kgen.rules.spec import MAX_NAME
from kgen.spec.job import JobSpec, role_items

RESERVED_ENV = (
    "PET_NNODES",
    "PET_NPROC_PER_NODE",
    "PET_NODE_RANK",
    "PET_MASTER_ADDR",
    "PET_MASTER_PORT",
)


@reads("roles")
def _nodes(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    if not role_items(spec):
        yield Problem(
            "a TrainJob needs nodes: a master or a worker role",
            "pytorch-no-roles",
            path=("roles",),
            at_key=True,
            hint="numNodes is every role's pods: `worker: {replicas: 4}` is four nodes",
        )


@reads("trainJob", "env")
def _reserved_env(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    if policy(own(spec)) != "torch":  # the torch plugin's check; MPI sets no PET_*
        return
    for index, var in enumerate(spec.env):
        if var.name in RESERVED_ENV:
            yield Problem(
                f"{var.name} is set by the torch runtime on every node",
                "trainjob-reserved-env",
                path=("env", index, "name"),
                hint="remove it; the runtime derives it from numNodes and numProcPerNode",
            )


@reads("trainJob", "command", "args")
def _torchrun(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    job = own(spec)
    if policy(job) != "torch":  # an MPI launcher runs mpirun or deepspeed
        return
    words = [*(job.command or []), *(job.args or [])]
    if any(name in word for word in words for name in TORCHRUN):
        return
    yield Problem(
        "the torch runtime sets no MASTER_ADDR, RANK or WORLD_SIZE: without torchrun every node trains alone",
        "trainjob-needs-torchrun",
        path=("command",) if job.command is not None else ("image",),
        at_key=job.command is not None,
        hint="start the script with torchrun (`command: [torchrun, train.py]`), which reads the runtime's PET_* variables",
    )


@reads("trainJob", "resources.gpu", "roles")
def _nproc_on_cpu(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    # torchrun's auto and cpu start a process per CPU core without GPUs; gpu finds none.
    job = own(spec)
    nproc = job.train_job.num_proc_per_node
    if nproc is None or nproc.isdigit():
        return
    gpus = [job.resources.gpu] + [
        r.resources.gpu for _, r in role_items(job) if r.resources and r.resources.gpu
    ]
    if not max(gpus):
        yield Problem(
            f"numProcPerNode {nproc} on nodes without GPUs starts one process per CPU core or none",
            "nproc-auto-on-cpu",
            path=("trainJob", "numProcPerNode"),
            hint="set a number, or leave it out: without GPUs the default is 1",
        )


@reads("trainJob")
def _initializer_unused(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    job = own(spec)
    if job.train_job.initializer is None:
        return
    ref = job.train_job.runtime_ref
    if ref is not None and (
        ref.kind != "ClusterTrainingRuntime" or ref.name not in INSTALLED_RUNTIMES
    ):
        return
    runtime = ref.name if ref else RUNTIMES[job.framework]
    yield Problem(
        f"the runtime {runtime} has no initializer jobs: the initializer downloads nothing",
        "trainjob-initializer-unused",
        path=("trainJob", "initializer"),
        at_key=True,
        hint="name a runtime with dataset-initializer and model-initializer jobs in trainJob.runtimeRef",
    )


@reads("trainJob", "labels")
def _suspend_queued(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    if own(spec).train_job.suspend and queued(spec):
        yield Problem(
            "Kueue holds this TrainJob suspended until admission; a suspend in the "
            "manifest suspends it again once admitted, at every Flux reconcile",
            "trainjob-suspend-queued",
            path=("trainJob", "suspend"),
            at_key=True,
            hint="remove trainJob.suspend; Kueue's webhook creates the job suspended",
        )


@reads("trainJob")
def _runtime_misspelled(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    # Trainer's webhook refuses a TrainJob whose runtime does not exist ("specified
    # clusterTrainingRuntime must be created before the TrainJob is created",
    # kubeflow/trainer pkg/runtime/core/clustertrainingruntime.go). kgen cannot read the
    # cluster's runtimes: a name it does not know may be the team's own, so only one a
    # slip away from a runtime Kubeflow installs is reported (`kgen explain` says
    # the same where it cannot tell the runtime's environment).
    job = own(spec)
    close = misspelled_runtime(job)
    if close is None:
        return
    yield Problem(
        f"runtimeRef names the ClusterTrainingRuntime {runtime_name(job)}, which Kubeflow does not install: Trainer refuses a TrainJob whose runtime the cluster lacks",
        "trainjob-runtime-misspelled",
        path=("trainJob", "runtimeRef", "name"),
        hint=f"did you mean '{close}'? (a runtime of your own by this name: silence the rule with a reason)",
    )


@reads("trainJob")
def _declared_policy(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    job = own(spec)
    known, declared = installed_policy(job), job.train_job.runtime_policy
    if known is not None and declared is not None and known != declared:
        yield Problem(
            f"runtimePolicy {declared} contradicts the runtime {runtime_name(job)}, whose mlPolicy is {known}",
            "trainjob-runtime-policy",
            path=("trainJob", "runtimePolicy"),
            hint="remove it: kgen knows the policy of the runtimes Kubeflow installs",
        )


@reads("trainJob")
def _mpi_slots(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    # The MPI plugin writes numProcPerNode as each host's slots, a number (mpi.go).
    job = own(spec)
    nproc = job.train_job.num_proc_per_node
    if policy(job) == "mpi" and nproc is not None and not nproc.isdigit():
        yield Problem(
            f"numProcPerNode {nproc} on an MPI runtime: the hostfile's slots are a number",
            "trainjob-runtime-policy",
            path=("trainJob", "numProcPerNode"),
            hint="set the processes per node as a number, or leave it out (the GPUs per node, else 1)",
        )


@reads("trainJob", "roles", "name", "runId")
def _launcher_name_fits(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    # An MPI runtime's launcher pod `{job}-launcher-0-0` is a hostname in the hostfile
    # (mpi_env); name-too-long in kgen.rules.spec checks the node pods only.
    job = own(spec)
    if policy(job) != "mpi" or not role_items(job):
        return
    run = run_name(job, ctx.job_names)
    launcher = f"{run}-{LAUNCHER}-0-0"
    nodes = sum(role.replicas for _, role in role_items(job))
    if len(launcher) <= MAX_NAME or len(launcher) <= len(f"{run}-{NODE}-0-{nodes - 1}"):
        return
    room = MAX_NAME - (len(launcher) - len(job.name))
    yield Problem(
        f"job name is too long: the MPI runtime's launcher pod would be named '{launcher}'"
        f" ({len(launcher)} characters, limit {MAX_NAME})",
        "name-too-long",
        path=("name",),
        hint=f"shorten the name to at most {room} characters",
    )


RULES: tuple[Rule, ...] = (
    _runtime_misspelled,
    _declared_policy,
    _launcher_name_fits,
    _mpi_slots,
    _nodes,
    _reserved_env,
    _torchrun,
    _nproc_on_cpu,
    _initializer_unused,
    _suspend_queued,
)
