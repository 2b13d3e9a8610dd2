"""What the MPI runtime gives a TrainJob's pods (`kgen explain`): Kubeflow's MPI
runtimes (deepspeed-distributed, mlx-distributed) run a `launcher` job beside the
`node` job; the launcher runs the trainer's command (mpirun over ssh), the nodes sshd.

kubeflow/trainer@v2.3.0, pkg/runtime/framework/plugins/mpi/mpi.go: with
runLauncherAsNode (both runtimes) the `node` job has max(numNodes - 1, 1) pods and the
launcher is a node too; the hostfile, a ConfigMap `{job}-mpi-hostfile` mounted at
/etc/mpi/hostfile on the launcher only, has a line `{host} slots={numProcPerNode}` per
pod of the node job then the launcher's; only the launcher's `node` container gets the
OMPI_MCA_* variables (pkg/constants/constants.go). Hosts are `{job}-{rjob}-0-{i}.{job}`
(pkg/runtime/framework/plugins/jobset/jobset.go). Nothing sets PET_*.
"""

from __future__ import annotations

from kgen.kinds.base import Replica, shown_indices
from kgen.kinds.trainer import LAUNCHER, NODE
from kgen.kinds.trainer.policy import installed_policy, runtime_name
from kgen.kinds.trainer.render import num_nodes, num_proc_per_node
from kgen.kinds.trainer.spec import TrainJobSpec

HOSTFILE = "/etc/mpi/hostfile"
SSH_RETRIES = "-o ConnectionAttempts=10"


def node_pods(job: TrainJobSpec) -> int:
    """Pods of the `node` job: the launcher takes one node's place."""
    return max(num_nodes(job) - 1, 1)


def replicas(job: TrainJobSpec, name: str, limit: int | None) -> list[Replica]:
    slots = num_proc_per_node(job)
    nodes = node_pods(job)
    hosts: list[str] = []
    out: list[Replica] = []
    for index, skipped in shown_indices(nodes, limit):
        pod = f"{name}-{NODE}-0-{index}"
        if skipped:
            hosts.append(f"# ... {skipped} more lines like these")
        hosts.append(f"{pod}.{name} slots={slots}")
        out.append(
            Replica(
                pod,
                {},
                why_empty="a node runs the runtime's sshd; mpirun on the launcher starts its processes",
                where=f"container {NODE}",
                skipped=skipped,
            )
        )
    launcher = f"{name}-{LAUNCHER}-0-0"
    hosts.append(f"{launcher}.{name} slots={slots}")
    variables = {
        "OMPI_MCA_orte_default_hostfile": HOSTFILE,
        "OMPI_MCA_orte_keep_fqdn_hostnames": "true",
        "OMPI_MCA_orte_set_default_slots": slots,
        "OMPI_MCA_plm_rsh_args": SSH_RETRIES,
    }
    out.append(
        Replica(
            launcher,
            variables,
            where=f"container {NODE}",
            files=((HOSTFILE, tuple(hosts)),),
        )
    )
    return [out[0]._replace(note=_note(job)), *out[1:]]


def _note(job: TrainJobSpec) -> str:
    runtime = runtime_name(job)
    known = (
        "mlPolicy mpi (OpenMPI, the launcher is a node)"
        if installed_policy(job)
        else "mlPolicy mpi as trainJob.runtimePolicy declares; shown as Kubeflow's MPI runtimes lay it out (OpenMPI, the launcher is a node)"
    )
    return (
        f"runtime {runtime}: {known}. The launcher runs the trainer's command "
        "(mpirun or deepspeed over ssh); torchrun's PET_* variables are not set."
    )
