"""The TrainJob problem codes, with the paragraph docs/rules.md and SARIF show."""

from __future__ import annotations

from kgen.rules.info import RuleInfo, rule

CATALOG: tuple[RuleInfo, ...] = (
    rule(
        "trainjob-cannot-map",
        "error",
        False,
        "A job setting a TrainJob on this trainer target cannot hold",
        """A TrainJob has one pod template for every node, filled in by its runtime:
        per-role settings, parameter servers, elastic training, the operator's run
        policies and the pod fields the release's override mechanism lacks would be
        dropped. kgen names the target instead; remove the setting in the trainer
        environment's overlay, or keep the job on a training-operator target.""",
    ),
    rule(
        "trainjob-section-elsewhere",
        "error",
        False,
        "A trainJob section on a target that renders no TrainJob",
        "Only the Kubeflow Trainer v2 targets render a TrainJob; move `trainJob:` into the trainer environment's overlay.",
    ),
    rule(
        "trainjob-reserved-env",
        "error",
        False,
        "An env var the torch runtime sets itself",
        "Kubeflow Trainer refuses a TrainJob that sets PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR or PET_MASTER_PORT (TorchRunReservedEnvNames).",
    ),
    rule(
        "trainjob-initializer-unused",
        "warning",
        True,
        "An initializer on a runtime without initializer jobs",
        """The ClusterTrainingRuntimes Kubeflow installs (torch-distributed,
        deepspeed-distributed, ...) have no dataset-initializer or model-initializer
        job, so trainJob.initializer downloads nothing there. Name a runtime that
        has them in trainJob.runtimeRef.""",
    ),
    rule(
        "trainjob-runtime-misspelled",
        "warning",
        True,
        "A ClusterTrainingRuntime named a letter or two away from one Kubeflow installs",
        """kgen knows the ClusterTrainingRuntimes Kubeflow installs by name
        (torch-distributed, deepspeed-distributed, jax-distributed, mlx-distributed,
        xgboost-distributed), not the cluster's own. A trainJob.runtimeRef name that
        is almost one of them (torch-distribted) is most likely a slip, and Trainer's
        webhook refuses a TrainJob whose runtime the cluster does not have, so Argo
        CD or Flux cannot apply it. A name far from all of
        them, or one that extends one (torch-distributed-gpu), is taken as the team's
        own runtime and not reported; silence the rule with a reason for a runtime of
        your own that is only spelled like Kubeflow's.""",
    ),
    rule(
        "trainjob-needs-torchrun",
        "warning",
        True,
        "A TrainJob whose command does not start torchrun",
        """The torch runtime sets only torchrun's PET_* variables: no MASTER_ADDR,
        RANK or WORLD_SIZE. A script started without torchrun sees a world of one
        and every node trains alone. Start it with `torchrun` (or `python -m
        torch.distributed.run`).""",
    ),
    rule(
        "trainjob-suspend-queued",
        "warning",
        True,
        "trainJob.suspend on a job Kueue admits",
        """Kueue's webhook creates a job with its queue-name label suspended, and
        Kueue resumes it on admission. A `suspend: true` in the manifest is applied
        again by Flux on every reconcile (server-side apply), which suspends the
        admitted job; kgen writes no suspend for a queued job unless asked. Remove
        trainJob.suspend.""",
    ),
    rule(
        "trainjob-runtime-policy",
        "error",
        False,
        "A runtime policy that contradicts the runtime, or MPI slots that are not a number",
        """kgen knows the mlPolicy of the ClusterTrainingRuntimes Kubeflow installs
        (torch-distributed: torch; deepspeed-distributed, mlx-distributed: mpi), so a
        trainJob.runtimePolicy that says otherwise is a mistake. On an MPI runtime
        numProcPerNode becomes each host's slots in the hostfile: a number, not
        auto, cpu or gpu.""",
    ),
)
