"""The environment the runtime gives each node of a TrainJob (`kgen explain`), by the
runtime's policy (kgen.kinds.trainer.policy): torch here, MPI in mpi_env, and for a
policy kgen does not know, a note that says so rather than a guess.

kubeflow/trainer@v2.3.0: pkg/runtime/framework/plugins/torch/torch.go sets, on the
runtime's `node` container, PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK (the Job's
completion index), PET_MASTER_ADDR (`{job}-node-0-0.{job}`, the first pod of the
JobSet's `node` job under its headless Service) and PET_MASTER_PORT (29500). torchrun
reads them; nothing sets MASTER_ADDR, RANK or WORLD_SIZE, which a script started
without torchrun needs (rule trainjob-needs-torchrun). JobSet names the pods
`{job}-node-0-{index}`, each with a random suffix.
"""

from __future__ import annotations

from kgen.kinds.base import Replica, shown_indices
from kgen.kinds.trainer import NODE, TORCH_PORT, mpi_env
from kgen.kinds.trainer.policy import misspelled_runtime, policy, runtime_name
from kgen.kinds.trainer.render import num_nodes, num_proc_per_node, runtime_ref
from kgen.kinds.trainer.spec import TrainJobSpec, own
from kgen.render.base import Environment
from kgen.spec.job import JobSpec


def replicas(
    spec: JobSpec, env: Environment, name: str, limit: int | None = None
) -> list[Replica]:
    job = own(spec)
    found = policy(job)
    if found == "mpi":
        return mpi_env.replicas(job, name, limit)
    if found != "torch":
        return [_unknown(job, found)]
    return _torch(job, name, limit)


def _torch(job: TrainJobSpec, name: str, limit: int | None) -> list[Replica]:
    nodes = num_nodes(job)
    nproc = num_proc_per_node(job)
    master = f"{name}-{NODE}-0-0.{name}"
    out = []
    for index, skipped in shown_indices(nodes, limit):
        variables = {
            "PET_NNODES": str(nodes),
            "PET_NPROC_PER_NODE": nproc,
            "PET_NODE_RANK": str(index),
            "PET_MASTER_ADDR": master,
            "PET_MASTER_PORT": str(TORCH_PORT),
        }
        pod = f"{name}-{NODE}-0-{index}"
        out.append(Replica(pod, variables, where=f"container {NODE}", skipped=skipped))
    return out


def _unknown(job: TrainJobSpec, found: str | None) -> Replica:
    runtime = f"{runtime_name(job)} ({runtime_ref(job)['kind']})"
    close = misspelled_runtime(job)
    if found is None and close is not None:
        # As trainjob-runtime-misspelled says at validate.
        why = f"kgen does not know the mlPolicy of the runtime {runtime}: did you mean '{close}'? (a runtime of your own by this name: declare it in trainJob.runtimePolicy, torch or mpi)"
    elif found is None:
        why = f"kgen does not know the mlPolicy of the runtime {runtime}; declare it in trainJob.runtimePolicy (torch or mpi)"
    else:
        why = f"the runtime {runtime} has mlPolicy {found}, whose environment kgen does not describe"
    return Replica("every pod", {}, why_empty=why)
