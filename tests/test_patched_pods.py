"""The kind's rules over a job's pod templates as its patches left them
(kgen.render.patched_pods): a container or variable a patch adds is checked against the
operator's env contract (operator-env) and the kind's pod rules
(pytorch-init-container-name), at the patch's line; what the spec set stays the spec
rules' to report."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import RunKgen, write_tree

KGEN_YAML = """\
environments:
  dev: [target]
lint:
  ignore: {resources-missing: minimal specs}
"""
PYTORCH = """\
framework: pytorch
image: registry.example.com/train:1.0
roles:
  master: {replicas: 1}
  worker: {replicas: 1}
"""
MPI = """\
framework: mpi
image: registry.example.com/mpi:1.0
roles:
  launcher: {replicas: 1}
  worker: {replicas: 2}
"""


def _validate(
    run_kgen: RunKgen, tmp_path: Path, job: str, patches: str, target: str = "v1"
) -> tuple[int, list[str]]:
    """The exit code and each problem line of the job file."""
    root = tmp_path / "project"
    write_tree(
        root,
        {
            "kgen.yaml": KGEN_YAML,
            "overlays/target.yaml": f"target: {target}\n",
            "jobs/train.yaml": f"{job}patches:\n{patches}",
        },
    )
    result = run_kgen("validate", "--format", "parsable", cwd=root)
    lines = (result.out + result.err).replace(": [error] ", ": error: ").splitlines()
    return result.code, [line for line in lines if line.startswith("jobs/")]


# The job's lines are 1-5, `patches:` line 6: a patch's first line is 7.
SIDECAR_RANK = """\
  - ops:
      - op: add
        path: /spec/pytorchReplicaSpecs/Worker/template/spec/containers/-
        value:
          name: side
          image: registry.example.com/side:1.0
          env: [{name: RANK, value: "0"}]
"""


def test_a_sidecar_a_patch_adds_gets_the_operators_rank(
    tmp_path: Path, run_kgen: RunKgen
):
    # kubeflow-api.md §6.2: PyTorchJob variables go into every container of the pod.
    assert _validate(run_kgen, tmp_path, PYTORCH, SIDECAR_RANK) == (
        1,
        [
            "jobs/train.yaml:13:24: error: the rendered PyTorchJob 'train', as a patch"
            " left it: RANK is set by training-operator 1.7 in the worker pods"
            " (RANK=1): the operator appends it after the job's env and Kubernetes"
            " keeps the last, so the job's value never reaches the process"
            " (operator-env)"
        ],
    )


INIT_PYTORCH = """\
  - merge:
      spec:
        pytorchReplicaSpecs:
          Worker:
            template:
              spec:
                initContainers:
                  - {name: init-pytorch, image: "registry.example.com/wait:1.0"}
"""


@pytest.mark.parametrize(
    ("job", "expected"),
    [
        (
            PYTORCH,
            [
                "jobs/train.yaml:14:28: error: the rendered PyTorchJob 'train', as a"
                " patch left it: 'init-pytorch' is the init container the operator"
                " adds to each worker pod: the API server refuses a pod with two"
                " containers of one name (pytorch-init-container-name)"
            ],
        ),
        # Without a master the operator adds no init container (§6.2).
        (
            PYTORCH.replace("  master: {replicas: 1}\n", "")
            + "elasticPolicy: {minReplicas: 1}\n",
            [],
        ),
    ],
)
def test_an_init_container_a_patch_adds_is_checked_by_the_kinds_rule(
    tmp_path: Path, run_kgen: RunKgen, job: str, expected: list[str]
):
    code, found = _validate(run_kgen, tmp_path, job, INIT_PYTORCH)
    assert (code, found) == (1 if expected else 0, expected)


LAUNCHER_ENV = """\
  - merge:
      spec:
        mpiReplicaSpecs:
          Launcher:
            template:
              spec:
                containers:
                  - name: mpi
                    env: [{name: OMPI_MCA_orte_default_hostfile, value: /my/hosts}]
"""
LAUNCHER_SIDECAR = LAUNCHER_ENV.replace("name: mpi\n", "name: side\n").replace(
    "                    env:",
    "                    image: registry.example.com/side:1.0\n                    env:",
)


@pytest.mark.parametrize("target", ["mpi-operator", "v1"])
def test_a_variable_a_patch_gives_the_mpi_launcher(
    tmp_path: Path, run_kgen: RunKgen, target: str
):
    # Both MPI operators append to the first container (kgen.kinds.mpi.env).
    release = {"v1": "training-operator 1.7"}.get(
        target,
        "API target mpi-operator (kubeflow.org/v2beta1 MPIJob, mpi-operator 0.8)",
    )
    assert _validate(run_kgen, tmp_path, MPI, LAUNCHER_ENV, target) == (
        1,
        [
            "jobs/train.yaml:15:34: error: the rendered MPIJob 'train', as a patch"
            f" left it: OMPI_MCA_orte_default_hostfile is set by {release} in the"
            " launcher pods (OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile): the"
            " operator appends it after the job's env and Kubernetes keeps the last,"
            " so the job's value never reaches the process (operator-env)"
        ],
    )


def test_an_mpi_sidecar_a_patch_adds_keeps_its_own(tmp_path: Path, run_kgen: RunKgen):
    # Only the first container gets the operator's variables.
    code, found = _validate(run_kgen, tmp_path, MPI, LAUNCHER_SIDECAR, "mpi-operator")
    assert (code, found) == (0, [])


def test_what_the_spec_set_is_reported_once_at_the_spec(
    tmp_path: Path, run_kgen: RunKgen
):
    # The patch adds a sidecar to the worker; the worker's RANK is the spec's.
    job = PYTORCH.replace(
        "worker: {replicas: 1}",
        'worker: {replicas: 1, env: [{name: RANK, value: "5"}]}',
    )
    sidecar = SIDECAR_RANK.replace('          env: [{name: RANK, value: "0"}]\n', "")
    assert _validate(run_kgen, tmp_path, job, sidecar) == (
        1,
        [
            "jobs/train.yaml:5:38: error: RANK is set by training-operator 1.7 in the"
            " worker pods (RANK=1): the operator appends it after the job's env and"
            " Kubernetes keeps the last, so the job's value never reaches the process"
            " (operator-env)"
        ],
    )


MPI_LAUNCHER_ENV = MPI.replace(
    "launcher: {replicas: 1}",
    "launcher: {replicas: 1, env: [{name: OMPI_MCA_orte_default_hostfile, value: /my/hosts}]}",
)
FIRST_IN_LAUNCHER = """\
  - ops:
      - op: add
        path: /spec/mpiReplicaSpecs/Launcher/template/spec/containers/0
        value:
          name: first
          image: registry.example.com/first:1.0
          env: [{name: OMPI_MCA_orte_default_hostfile, value: /other}]
"""
MPI_OPERATOR = "API target mpi-operator (kubeflow.org/v2beta1 MPIJob, mpi-operator 0.8)"


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        # The container the patch puts first gets the operator's variables: its own
        # is reported at the patch; the job's launcher container, second now, keeps
        # its OMPI_MCA_orte_default_hostfile (spec line 4 is not reported).
        (
            FIRST_IN_LAUNCHER,
            [
                "jobs/train.yaml:13:24: error: the rendered MPIJob 'train', as a patch"
                f" left it: OMPI_MCA_orte_default_hostfile is set by {MPI_OPERATOR} in"
                " the launcher pods (OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile):"
                " the operator appends it after the job's env and Kubernetes keeps the"
                " last, so the job's value never reaches the process (operator-env)"
            ],
        ),
        (
            FIRST_IN_LAUNCHER.replace(
                "          env: [{name: OMPI_MCA_orte_default_hostfile, value: /other}]\n",
                "",
            ),
            [],
        ),
    ],
)
def test_the_mpi_check_follows_the_container_first_after_patches(
    tmp_path: Path, run_kgen: RunKgen, patch: str, expected: list[str]
):
    # Both MPI operators append to `Containers[0]` of the pod as submitted, the one
    # a patch inserted at index 0 included (kgen.kinds.mpi.env).
    code, found = _validate(run_kgen, tmp_path, MPI_LAUNCHER_ENV, patch, "mpi-operator")
    assert (code, found) == (1 if expected else 0, expected)


MPI_LAUNCHER_SIDECAR = MPI.replace(
    "launcher: {replicas: 1}",
    "launcher:\n    replicas: 1\n    containers:\n      - name: side\n"
    "        image: registry.example.com/side:1.0\n"
    "        env: [{name: OMPI_MCA_orte_default_hostfile, value: /my/hosts}]",
)
DELETE_MAIN = """\
  - merge:
      spec:
        mpiReplicaSpecs:
          Launcher:
            template:
              spec:
                containers:
                  - {name: mpi, $patch: delete}
"""


def test_a_job_sidecar_a_patch_leaves_first_gets_the_mpi_variables(
    tmp_path: Path, run_kgen: RunKgen
):
    # The merge deletes the launcher's main container: the job's sidecar is first,
    # and its own variable, the spec's (line 9), is the one the operator overrides.
    job = MPI_LAUNCHER_SIDECAR
    code, found = _validate(run_kgen, tmp_path, job, DELETE_MAIN, "mpi-operator")
    assert (code, [line for line in found if ": error: " in line]) == (
        1,
        [
            "jobs/train.yaml:9:22: error: OMPI_MCA_orte_default_hostfile is set by"
            f" {MPI_OPERATOR} in the launcher pods"
            " (OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile): the operator appends"
            " it after the job's env and Kubernetes keeps the last, so the job's value"
            " never reaches the process (operator-env)"
        ],
    )
    # Without the patch the sidecar is second and keeps its own.
    code, found = _validate(run_kgen, tmp_path, job, "  []\n", "mpi-operator")
    assert (code, [line for line in found if ": error: " in line]) == (0, [])


def test_a_job_sidecar_a_patch_moves_first_is_reported_once_at_the_patch(
    tmp_path: Path, run_kgen: RunKgen
):
    # The move wrote the first container: its variables are the patch's (line 15).
    move = (
        "  - ops:\n"
        "      - op: move\n"
        "        from: /spec/mpiReplicaSpecs/Launcher/template/spec/containers/1\n"
        "        path: /spec/mpiReplicaSpecs/Launcher/template/spec/containers/0\n"
    )
    job = MPI_LAUNCHER_SIDECAR
    code, found = _validate(run_kgen, tmp_path, job, move, "mpi-operator")
    assert (code, [line for line in found if ": error: " in line]) == (
        1,
        [
            "jobs/train.yaml:15:15: error: the rendered MPIJob 'train', as a patch"
            f" left it: OMPI_MCA_orte_default_hostfile is set by {MPI_OPERATOR} in the"
            " launcher pods (OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile): the"
            " operator appends it after the job's env and Kubernetes keeps the last,"
            " so the job's value never reaches the process (operator-env)"
        ],
    )


def test_the_mpi_main_container_a_patch_renames_is_still_first(
    tmp_path: Path, run_kgen: RunKgen
):
    # The operator takes `Containers[0]` whatever its name: the job's variable there
    # is still overridden, and still the spec's (line 4).
    rename = (
        "  - ops:\n"
        "      - op: replace\n"
        "        path: /spec/mpiReplicaSpecs/Launcher/template/spec/containers/0/name\n"
        "        value: main\n"
    )
    job = MPI_LAUNCHER_ENV
    assert _validate(run_kgen, tmp_path, job, rename, "mpi-operator") == (
        1,
        [
            "jobs/train.yaml:4:40: error: OMPI_MCA_orte_default_hostfile is set by"
            f" {MPI_OPERATOR} in the launcher pods"
            " (OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile): the operator appends"
            " it after the job's env and Kubernetes keeps the last, so the job's value"
            " never reaches the process (operator-env)"
        ],
    )
