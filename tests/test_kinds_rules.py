"""What the newer kinds refuse, at file:line:col with exit 1: what their webhooks and
controllers reject (often with only an event, so the job would wait forever), fields
and kinds a target does not have, and the one target an environment renders for."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import yaml

from tests.conftest import RunKgen

Project = Callable[..., Path]

BASE = {
    "kgen.yaml": """
        environments:
          dev: [v1]
          hpc: [mpi]
        lint:
          ignore: {resources-missing: minimal specs}
    """,
    "overlays/v1.yaml": "target: v1\n",
    "overlays/mpi.yaml": "target: mpi-operator\n",
}


def _validate(project: Project, run_kgen: RunKgen, files: dict[str, str]) -> str:
    root = project(files, base=BASE)
    result = run_kgen("validate", cwd=root)
    assert result.code == 1, result
    return result.err


def test_mpi_launcher_missing_and_a_job_command_on_workers(
    project: Project, run_kgen: RunKgen
):
    spec = """
        framework: mpi
        image: x:1
        command: [mpirun, train]
        roles:
          worker: {replicas: 2, restartPolicy: ExitCode}
    """
    assert _validate(project, run_kgen, {"jobs/a.yaml": spec}) == (
        "jobs/a.yaml:3:1: error: the job's command would run on the MPI workers too, which must wait for the launcher instead (mpi-worker-command)\n"
        "    hint: move it to roles.launcher.command, or give roles.worker a command of its own\n"
        "jobs/a.yaml:4:1: error: an MPIJob needs a launcher role to run mpirun (mpi-no-launcher)\n"
        "    hint: add roles.launcher with replicas: 1 and the mpirun command\n"
        "jobs/a.yaml:5:40: error: mpi-operator accepts restartPolicy Never or OnFailure, not ExitCode (mpi-restart-policy)\n"
        "    hint: use OnFailure or Never for API target mpi-operator\n"
        "    in environment hpc\n"
        "kgen: 3 errors in 1 file\n"
    )


def test_mpi_one_launcher_whose_gpus_mpi_operator_would_hide(
    project: Project, run_kgen: RunKgen
):
    spec = """
        framework: mpi
        image: x:1
        roles:
          launcher: {replicas: 2, command: [mpirun], resources: {gpu: 1}}
    """
    assert _validate(project, run_kgen, {"jobs/b.yaml": spec}) == (
        "jobs/b.yaml:4:24: error: an MPIJob has exactly one launcher, not 2 (mpi-launcher-replicas)\n"
        "    hint: add the extra pods to roles.worker.replicas instead\n"
        "jobs/b.yaml:4:46: error: mpi-operator hides the launcher's GPUs (NVIDIA_VISIBLE_DEVICES is empty) unless runLauncherAsWorker is true (mpi-launcher-gpu-hidden)\n"
        "    hint: remove the launcher's GPUs, or set runLauncherAsWorker: true to run ranks on it\n"
        "    in environment hpc\n"
        "kgen: 2 errors in 1 file\n"
    )


def test_mpi_operator_fields_on_training_operators_mpijob(
    project: Project, run_kgen: RunKgen
):
    spec = """
        framework: mpi
        image: x:1
        mpiImplementation: Intel
        runLauncherAsWorker: true
        roles:
          launcher: {replicas: 1, command: [mpirun]}
    """
    assert _validate(project, run_kgen, {"jobs/c.yaml": spec}) == (
        "jobs/c.yaml:3:1: error: mpiImplementation cannot be expressed for training-operator 1.7 (target-unsupported-field)\n"
        "    hint: mpiImplementation is mpi-operator's (target mpi-operator); training-operator's MPIJob v1 has none: remove it for this environment in an overlay (`mpiImplementation: null`)\n"
        "    in environment dev\n"
        "jobs/c.yaml:4:1: error: runLauncherAsWorker cannot be expressed for training-operator 1.7 (target-unsupported-field)\n"
        "    hint: runLauncherAsWorker is mpi-operator's (target mpi-operator); training-operator's MPIJob v1 has none: remove it for this environment in an overlay (`runLauncherAsWorker: null`)\n"
        "    in environment dev\n"
        "kgen: 2 errors in 1 file\n"
    )


def test_kinds_name_the_targets_they_exist_on(project: Project, run_kgen: RunKgen):
    files = {
        "jobs/pt.yaml": """
            framework: pytorch
            image: x:1
            roles: {master: {replicas: 1}}
        """,
        "jobs/jx.yaml": """
            framework: jax
            image: x:1
            roles: {worker: {replicas: 2}}
        """,
    }
    assert _validate(project, run_kgen, files) == (
        "jobs/jx.yaml:1:12: error: JAXJob does not exist on API target mpi-operator (kubeflow.org/v2beta1 MPIJob, mpi-operator 0.8) (target-unsupported-kind)\n"
        "    hint: JAXJob exists on the target training-operator-1.9; leave this job out of the environment (`jobs:` in kgen.yaml) or change its target\n"
        "    in environment hpc\n"
        "jobs/jx.yaml:1:12: error: JAXJob does not exist on API target v1 (kubeflow.org/v1 with spec.runPolicy, training-operator 1.7 and later) (target-unsupported-kind)\n"
        "    hint: JAXJob exists on the target training-operator-1.9; leave this job out of the environment (`jobs:` in kgen.yaml) or change its target\n"
        "    in environment dev\n"
        "jobs/pt.yaml:1:12: error: PyTorchJob does not exist on API target mpi-operator (kubeflow.org/v2beta1 MPIJob, mpi-operator 0.8) (target-unsupported-kind)\n"
        "    hint: PyTorchJob exists on the targets training-operator-1.3 to training-operator-1.9, v1, v1-legacy, v1beta1, v1beta2; leave this job out of the environment (`jobs:` in kgen.yaml) or change its target\n"
        "    in environment hpc\n"
        "kgen: 3 errors in 2 files\n"
    )


def test_xgboost_master_jax_and_paddle_workers(project: Project, run_kgen: RunKgen):
    files = {
        "kgen.yaml": """
            environments:
              dev: [to19]
            lint:
              ignore: {resources-missing: minimal specs}
        """,
        "overlays/to19.yaml": "target: training-operator-1.9\n",
        "jobs/xgb.yaml": """
            framework: xgboost
            image: x:1
            roles:
              worker: {replicas: 2}
        """,
        "jobs/xgb2.yaml": """
            framework: xgboost
            image: x:1
            roles:
              master: {replicas: 2}
        """,
        "jobs/jax.yaml": """
            framework: jax
            image: x:1
            roles: {}
        """,
        "jobs/pd.yaml": """
            framework: paddle
            image: x:1
            roles:
              master: {replicas: 1}
        """,
    }
    assert _validate(project, run_kgen, files) == (
        "jobs/jax.yaml:3:1: error: a JAXJob needs a worker role (jax-no-worker)\n"
        "    hint: add roles.worker with the number of JAX processes\n"
        "jobs/pd.yaml:3:1: error: a PaddleJob needs a worker role to do the training (paddle-no-worker)\n"
        "    hint: add roles.worker; a master is only for parameter-server mode\n"
        "jobs/xgb.yaml:3:1: error: an XGBoostJob needs a master role (rank 0) (xgboost-no-master)\n"
        "    hint: add roles.master with replicas: 1\n"
        "jobs/xgb2.yaml:4:22: error: an XGBoostJob has exactly one master, not 2 (xgboost-master-replicas)\n"
        "    hint: add the extra pods to roles.worker.replicas instead\n"
        "kgen: 4 errors in 4 files\n"
    )


def test_empty_roles_are_an_error_not_a_crash(project: Project, run_kgen: RunKgen):
    # `roles: {}` names no pod; it used to end in an internal error (exit 3).
    spec = "framework: pytorch\nimage: x:1\nroles: {}\n"
    root = project({"jobs/p.yaml": spec})
    result = run_kgen("validate", cwd=root)
    assert (result.code, result.err) == (
        1,
        "jobs/p.yaml:3:1: error: a PyTorchJob needs a master or a worker role (pytorch-no-roles)\n"
        "kgen: 1 error in 1 file\n",
    )


MPI_JOB = """
    framework: mpi
    image: x:1
    resources: {gpu: 2}
    roles:
      launcher: {replicas: 1, command: [mpirun, train]}
      worker: {replicas: 2}
"""


def test_an_environment_renders_mpijob_for_one_operator(
    project: Project, run_kgen: RunKgen
):
    # An environment has one target, the last its overlays set, whatever their `match`:
    # training-operator's MPIJob v1 and mpi-operator's v2beta1 never share one.
    files = {
        "kgen.yaml": """
            environments:
              mixed: [v1, some-mpi]
            lint:
              ignore: {resources-missing: minimal specs}
        """,
        "overlays/some-mpi.yaml": "match: {names: [b]}\ntarget: mpi-operator\n",
        "jobs/a.yaml": MPI_JOB,
        "jobs/b.yaml": MPI_JOB,
    }
    root = project(files, base=BASE)
    assert run_kgen("build", cwd=root).code == 0
    versions = {
        path.name: yaml.safe_load(path.read_text().split("---\n", 1)[1])["apiVersion"]
        for path in sorted((root / "manifests" / "mixed").glob("*.mpijob.yaml"))
    }
    assert versions == {
        "a.mpijob.yaml": "kubeflow.org/v2beta1",
        "b.mpijob.yaml": "kubeflow.org/v2beta1",
    }


def test_a_trainer_target_in_an_overlay_that_leaves_a_job_out_is_still_its_target(
    project: Project, run_kgen: RunKgen
):
    # The job the overlay's `match` leaves out was checked as a PyTorchJob and rendered
    # as a TrainJob: an internal error (exit 3). Its spec is now checked for the
    # environment's target too.
    files = {
        "kgen.yaml": """
            environments:
              trainer: {overlays: [t], namespace: ml}
            lint:
              ignore: {resources-missing: minimal specs}
        """,
        "overlays/t.yaml": "target: trainer-v2.3\nmatch: {names: [other]}\n",
        "jobs/a.yaml": """
            framework: pytorch
            image: x:1
            command: [torchrun, train.py]
            roles: {master: {replicas: 1}}
        """,
    }
    root = project(files, base={})
    result = run_kgen("build", cwd=root)
    assert result.code == 0, result
    assert (root / "manifests/trainer/a.trainjob.yaml").is_file()


def test_plan_counts_no_gpu_for_the_launcher(project: Project, run_kgen: RunKgen):
    root = project({"jobs/hvd.yaml": MPI_JOB}, base=BASE)
    result = run_kgen("plan", cwd=root)
    assert result.code == 0, result
    assert result.out == (
        "ENVIRONMENT  JOB      KIND    TARGET        ROLES                 PODS  GPUS  CPU  MEMORY\n"
        "dev          hvd      MPIJob  v1            launcher 1, worker 2  3     4     -    -\n"
        "dev          (total)                                              3     4     -    -\n"
        "hpc          hvd      MPIJob  mpi-operator  launcher 1, worker 2  3     4     -    -\n"
        "hpc          (total)                                              3     4     -    -\n"
    )
