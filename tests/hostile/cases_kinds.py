"""Hostile inputs against the newer kinds (MPIJob, XGBoostJob, JAXJob, PaddleJob) and
the mpi-operator target (issue 20)."""

from __future__ import annotations

from tests.hostile.case import Case, Content, job

MPI_JOB = """\
framework: mpi
image: registry.example.com/hvd:1.0
roles:
  launcher: {replicas: 1, command: [mpirun, train]}
  worker: {replicas: 2}
"""


IMPORT = ("import", "manifest.yaml", "--out", "imported")


def _manifest(kind: str, api: str, replicas: str) -> dict[str, Content]:
    head = (
        f"apiVersion: kubeflow.org/{api}\nkind: {kind}\nmetadata:\n  name: j\nspec:\n"
    )
    return {"manifest.yaml": head + replicas}


def _mpi_with(line: str) -> dict[str, Content]:
    return job(MPI_JOB + line + "\n")


CASES: dict[str, Case] = {
    "kinds-mpi-job-on-a-target-without-mpijob": Case(
        job(MPI_JOB),
        about="v1beta1 clusters have no MPIJob resource: an error naming the targets that do",
    ),
    "kinds-pytorch-job-on-the-mpi-operator-target": Case(
        {"overlays/v1.yaml": "target: mpi-operator\n"},
        about="mpi-operator serves only MPIJob; a PyTorchJob there would never apply",
    ),
    "kinds-mpi-slots-beyond-the-limit": Case(
        _mpi_with("slotsPerWorker: 4294967296"),
        about="an int32 field given 2^32",
    ),
    "kinds-mpi-implementation-with-escape-codes": Case(
        _mpi_with('mpiImplementation: "OpenMPI\\e[2J\\e[31m"'),
        about="terminal escapes in a value the enum refuses are escaped in the message",
    ),
    "kinds-mpi-ssh-path-climbs-out": Case(
        _mpi_with("sshAuthMountPath: ../../root/.ssh"),
        about="a relative mount path for the generated ssh key",
    ),
    "kinds-framework-in-upper-case": Case(
        job(MPI_JOB.replace("framework: mpi", "framework: MPI")),
        about="framework names are exact",
    ),
    "kinds-mpi-roles-of-another-kind": Case(
        job(MPI_JOB.replace("launcher:", "master:")),
        about="PyTorch's role name in an MPIJob",
    ),
    "kinds-mpi-launcher-replicas-as-text": Case(
        job(MPI_JOB.replace("{replicas: 1,", '{replicas: "1",')),
        about="strict types: a quoted count",
    ),
    "kinds-empty-roles": Case(
        job("framework: pytorch\nimage: registry.example.com/t:1\nroles: {}\n"),
        about="no pod at all; once an internal error (exit 3) in the name-length rule",
    ),
    "kinds-xgboost-explain-many-workers": Case(
        job(
            "framework: xgboost\nimage: registry.example.com/xgb:1\n"
            "roles:\n  master: {replicas: 1}\n  worker: {replicas: 12}\n"
        ),
        args=("explain", "train", "--env", "dev"),
        expected_exit=0,
        about="WORKER_ADDRS goes to every pod: shown abbreviated, not N copies of N names",
    ),
    "kinds-import-mpijob-without-containers": Case(
        _manifest(
            "MPIJob",
            "v2beta1",
            "  mpiReplicaSpecs:\n    Launcher:\n      template: {spec: {containers: []}}\n",
        ),
        args=IMPORT,
        about="an MPIJob is read by its first container; there is none",
    ),
    "kinds-import-mpijob-sidecar-after-the-first": Case(
        _manifest(
            "MPIJob",
            "v2beta1",
            "  mpiReplicaSpecs:\n    Launcher:\n      template:\n        spec:\n"
            '          containers:\n          - {name: main, image: "x:1"}\n'
            '          - {name: proxy, image: "y:1"}\n',
        ),
        args=IMPORT,
        expected_exit=0,
        about="the first container is the main one; the next is imported as a sidecar",
    ),
    "kinds-import-mpijob-replica-specs-as-a-list": Case(
        _manifest("MPIJob", "v2beta1", "  mpiReplicaSpecs: [Launcher, Worker]\n"),
        args=IMPORT,
        about="not the API's shape: an error at the field, naming the shape expected",
    ),
    "kinds-import-xgboost-without-its-container": Case(
        _manifest(
            "XGBoostJob",
            "v1",
            "  xgbReplicaSpecs:\n    Master:\n      replicas: 1\n      template:\n"
            '        spec: {containers: [{name: trainer, image: "x:1"}]}\n',
        ),
        args=IMPORT,
        about="the webhook requires a container named xgboost",
    ),
}
