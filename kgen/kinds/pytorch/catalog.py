"""The PyTorchJob problem codes, with the paragraph docs/rules.md and SARIF show."""

from __future__ import annotations

from kgen.rules.info import RuleInfo, rule

CATALOG: tuple[RuleInfo, ...] = (
    rule(
        "pytorch-master-replicas",
        "error",
        False,
        "A PyTorchJob master with other than 1 replica",
        "The webhook and the operator require exactly one master; put extra pods in workers.",
    ),
    rule(
        "pytorch-no-roles",
        "error",
        False,
        "A PyTorchJob without roles",
        "A PyTorchJob needs a master or, with elasticPolicy, workers.",
    ),
    rule(
        "pytorch-worker-only",
        "error",
        False,
        "A worker-only PyTorchJob without elasticPolicy",
        "Without a master the operator sets no MASTER_ADDR or RANK, so every pod is rank 0 and the job hangs at rendezvous (trainer#1988).",
    ),
    rule(
        "pytorch-init-container-name",
        "error",
        False,
        "A container named init-pytorch in a worker pod",
        "With a master, the operator adds the init container `init-pytorch` to every worker pod, which waits for the master's address (kubeflow-api.md §6.2). Container names are unique in a pod, so the API server refuses each worker pod that already has one of that name, and the job never starts.",
    ),
    rule(
        "target-needs-master",
        "error",
        False,
        "A worker-only PyTorchJob on a target that requires a master",
        "Worker-only PyTorchJobs need training-operator 1.4 or later (target v1, or training-operator-1.4 to 1.9).",
    ),
    rule(
        "elastic-needs-worker",
        "error",
        False,
        "elasticPolicy without a worker role",
        "elasticPolicy scales the worker role.",
    ),
    rule(
        "elastic-min-max",
        "error",
        False,
        "elasticPolicy minReplicas above maxReplicas",
        "No validation upstream catches this; the HPA would never settle.",
    ),
    rule(
        "elastic-replicas-range",
        "error",
        False,
        "Workers outside elasticPolicy's range",
        "The starting worker count must lie between minReplicas and maxReplicas.",
    ),
    rule(
        "nproc-auto-on-cpu",
        "error",
        True,
        "nprocPerNode auto, cpu or gpu on pods without GPUs",
        "torchrun's auto and cpu start one process per CPU core of the node, and gpu finds no device. Leave nprocPerNode unset for CPU environments (kgen then sets 1).",
    ),
)
