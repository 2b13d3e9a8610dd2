"""A variable the job sets that the operator of the environment's release sets too
(kubeflow-api.md §6.2, §6.3; docs/env-contract.md): the operator appends its own after
the job's env and Kubernetes keeps the last, so the job's value is dead configuration.
Which names collide is the release's env contract."""

from __future__ import annotations

from typing import Any

import pytest

from kgen.kinds import kind_for
from kgen.kinds.targets import TARGETS
from kgen.render.base import Environment
from kgen.render.job import render_job
from kgen.render.operator_env import OPERATOR_NAMES, OPERATOR_PREFIXES


def _codes(
    framework: str, target: str, roles: dict[str, Any], **extra: Any
) -> list[str]:
    data = {"name": "j", "framework": framework, "image": "x:1", "roles": roles}
    kind = kind_for(framework, TARGETS[target])
    spec = kind.model().model_validate(data | extra)
    _, problems = render_job(spec, Environment("e", TARGETS[target], "ns"))
    return [".".join(map(str, p.path)) for p in problems if p.code == "operator-env"]


PYTORCH = {"master": {"replicas": 1}, "worker": {"replicas": 2}}


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        # §6.2: PYTHONUNBUFFERED was 0 in v1.4-v1.6 and in pytorch-operator, 1 from v1.7.
        ("v1beta2", ["env.0.name"]),
        ("training-operator-1.5", ["env.0.name"]),
        ("training-operator-1.9", []),
        ("v1", []),
    ],
)
def test_pythonunbuffered_overridden_where_the_release_sets_0(
    target: str, expected: list[str]
):
    env = [{"name": "PYTHONUNBUFFERED", "value": "1"}]
    assert _codes("pytorch", target, PYTORCH, env=env) == expected


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        # §6.2 per release: no non-elastic PET_NNODES before v1.7.
        ("training-operator-1.6", []),
        ("training-operator-1.7", ["env.0.name"]),
    ],
)
def test_pet_nnodes_only_from_17(target: str, expected: list[str]):
    env = [{"name": "PET_NNODES", "value": "5"}]
    overlay = {} if target.endswith("1.7") else {"nprocPerNode": None}
    assert _codes("pytorch", target, PYTORCH, env=env, **overlay) == expected


def test_a_role_env_is_reported_at_the_role():
    roles = {
        "master": {"replicas": 1},
        "worker": {"replicas": 2, "env": [{"name": "MASTER_ADDR", "value": "m"}]},
    }
    assert _codes("pytorch", "v1", roles) == ["roles.worker.env.0.name"]


def test_a_worker_only_job_gets_no_master_addr():
    # §6.2: without a Master spec the operator sets no MASTER_ADDR, RANK or
    # PET_NODE_RANK; elastic workers rendezvous at PET_RDZV_ENDPOINT.
    env = [{"name": "MASTER_ADDR", "value": "m"}]
    roles = {"worker": {"replicas": 2}}
    assert _codes("pytorch", "v1", roles, env=env, elasticPolicy={}) == []


@pytest.mark.parametrize(
    ("target", "replicas", "expected"),
    [
        # §6.3: TF_CONFIG only when the job has more than one pod (isDistributed) ...
        ("v1", 1, []),
        ("v1", 3, ["env.0.name"]),
        # ... but tf-operator v0.4/v0.5 configured a single replica too (Nov 2026
        # correction: pod.go `setClusterSpec` at v0.4.0 and v0.5.3).
        ("v1beta2", 1, ["env.0.name"]),
    ],
)
def test_tf_config_where_the_operator_writes_it(
    target: str, replicas: int, expected: list[str]
):
    env = [{"name": "TF_CONFIG", "value": "{}"}]
    roles = {"worker": {"replicas": replicas}}
    assert _codes("tensorflow", target, roles, env=env) == expected


def test_a_value_equal_to_the_operators_in_every_pod_is_left_alone():
    env = [{"name": "MASTER_PORT", "value": "23456"}]
    assert _codes("pytorch", "v1", PYTORCH, env=env) == []


def test_a_trainjob_is_left_to_its_reserved_env_rule():
    env = [{"name": "PET_NNODES", "value": "4"}]
    assert _codes("pytorch", "trainer-v2.3", PYTORCH, env=env) == []


@pytest.mark.parametrize(
    ("framework", "target", "roles", "variable"),
    [
        # training-operator@v1.9.4:pkg/controller.v1/xgboost/xgboost.go `SetPodEnv`
        ("xgboost", "v1", {"master": {"replicas": 1}}, "WORLD_SIZE"),
        # training-operator@v1.9.4:pkg/controller.v1/jax/envvar.go `setPodEnv`
        ("jax", "training-operator-1.9", {"worker": {"replicas": 2}}, "NUM_PROCESSES"),
    ],
)
def test_xgboost_and_jax_append_theirs_too(
    framework: str, target: str, roles: dict[str, Any], variable: str
):
    env = [{"name": variable, "value": "7"}]
    assert _codes(framework, target, roles, env=env) == ["env.0.name"]


def test_paddle_appends_its_own_too():
    # training-operator@v1.9.4:pkg/controller.v1/paddlepaddle/envvar.go `setPodEnv`
    env = [{"name": "PADDLE_NNODES", "value": "9"}]
    roles = {"worker": {"replicas": 2}}
    assert _codes("paddle", "v1", roles, env=env) == ["env.0.name"]


SIDECAR = [
    {"name": "side", "image": "x:1", "env": [{"name": "TF_CONFIG", "value": "{}"}]}
]


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        # §6.3: from tf-operator v1.0.1 only the container named tensorflow ...
        ("v1", []),
        # ... before it every container (the Nov 2026 correction's account).
        ("v1beta2", ["containers.0.env.0.name"]),
    ],
)
def test_a_sidecar_only_where_the_operator_fills_every_container(
    target: str, expected: list[str]
):
    roles = {"worker": {"replicas": 2}}
    assert _codes("tensorflow", target, roles, containers=SIDECAR) == expected


def test_a_pytorch_sidecar_of_one_role():
    # §6.2: PyTorchJob env goes into every container of every replica.
    side = [{"name": "side", "image": "x:1", "env": [{"name": "RANK", "value": "0"}]}]
    roles = {"master": {"replicas": 1}, "worker": {"replicas": 1, "containers": side}}
    assert _codes("pytorch", "v1", roles) == ["roles.worker.containers.0.env.0.name"]


SPECS = [
    ("pytorch", PYTORCH, {"elasticPolicy": {"rdzvId": "r", "maxRestarts": 2}}),
    ("pytorch", PYTORCH, {}),
    ("tensorflow", {"chief": {"replicas": 1}, "worker": {"replicas": 2}}, {}),
    ("xgboost", {"master": {"replicas": 1}, "worker": {"replicas": 2}}, {}),
    ("jax", {"worker": {"replicas": 2}}, {}),
    ("paddle", {"master": {"replicas": 1}, "worker": {"replicas": 2}}, {}),
    ("paddle", {"worker": {"replicas": 2}}, {}),
    ("mpi", {"launcher": {"replicas": 1}, "worker": {"replicas": 2}}, {}),
    ("mpi", {"launcher": {"replicas": 1}}, {"mpiImplementation": "Intel"}),
    ("mpi", {"launcher": {"replicas": 1}}, {"mpiImplementation": "MPICH"}),
]


@pytest.mark.parametrize(("framework", "roles", "extra"), SPECS)
def test_the_prefilter_knows_every_name_an_operator_sets(
    framework: str, roles: dict[str, Any], extra: dict[str, Any]
):
    # A job none of whose names the prefilter knows is never checked against the
    # contract: it must know every name of every release's contract.
    for target in TARGETS.values():
        kind = kind_for(framework, target)
        if not kind.appends_env or target.name not in kind.targets:
            continue
        data = {"name": "j", "framework": framework, "image": "x:1", "roles": roles}
        spec = kind.model().model_validate(data | extra)
        env = Environment("e", target, "ns")
        for pod in kind.env_contract(spec, env):
            for name in pod.env:
                assert name in OPERATOR_NAMES or name.startswith(OPERATOR_PREFIXES)


@pytest.mark.parametrize(
    ("framework", "target", "roles", "variable"),
    [
        ("xgboost", "v1", {"master": {"replicas": 1}}, "MASTER_ADDR"),
        ("jax", "training-operator-1.9", {"worker": {"replicas": 2}}, "PROCESS_ID"),
        ("paddle", "v1", {"worker": {"replicas": 2}}, "PADDLE_NNODES"),
    ],
)
def test_every_container_of_the_other_kinds_too(
    framework: str, target: str, roles: dict[str, Any], variable: str
):
    # Each of these operators fills every container of the pod (`for i := range
    # podTemplateSpec.Spec.Containers` in xgboost.go, jax/envvar.go,
    # paddlepaddle/envvar.go at training-operator v1.9.4): a sidecar's value too.
    side = [{"name": "side", "image": "x:1", "env": [{"name": variable, "value": "x"}]}]
    assert _codes(framework, target, roles, containers=side) == [
        "containers.0.env.0.name"
    ]


MPI = {"launcher": {"replicas": 1}, "worker": {"replicas": 2}}
OMPI_HOSTFILE = [{"name": "OMPI_MCA_orte_default_hostfile", "value": "/my/hosts"}]


@pytest.mark.parametrize("target", ["mpi-operator", "training-operator-1.4", "v1"])
def test_mpijob_launcher_hostfile_is_the_operators(target: str):
    # Both operators append to the launcher's first container, after its env:
    # kubeflow/mpi-operator@v0.8.0:pkg/controller/mpi_job_controller.go
    # `newLauncherPodTemplate` (`container.Env = append(container.Env, ompiEnvVars...)`),
    # kubeflow/training-operator@v1.9.4:pkg/controller.v1/mpi/mpijob_controller.go
    # `newLauncher` (the same append of OMPI_MCA_plm_rsh_agent and this one).
    assert _codes("mpi", target, MPI, env=OMPI_HOSTFILE) == ["env.0.name"]


def test_mpijob_message_names_the_launcher_pods():
    data = {"name": "j", "framework": "mpi", "image": "x:1", "roles": MPI}
    target = TARGETS["training-operator-1.9"]
    spec = kind_for("mpi", target).model().model_validate(data | {"env": OMPI_HOSTFILE})
    _, problems = render_job(spec, Environment("e", target, "ns"))
    assert [p.message for p in problems if p.code == "operator-env"] == [
        "OMPI_MCA_orte_default_hostfile is set by training-operator 1.9 in the launcher pods (OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile): the operator appends it after the job's env and Kubernetes keeps the last, so the job's value never reaches the process"
    ]


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        # mpi-operator@v0.8.0 `newWorker` and `newLauncherPodTemplate`: workerEnvVars
        # and launcherEnvVars, appended.
        ("mpi-operator", ["env.0.name"]),
        # training-operator's MPIJob v1 sets no K_MPI_JOB_ROLE.
        ("v1", []),
    ],
)
def test_k_mpi_job_role_only_on_mpi_operator(target: str, expected: list[str]):
    env = [{"name": "K_MPI_JOB_ROLE", "value": "rank"}]
    assert _codes("mpi", target, MPI, env=env) == expected


@pytest.mark.parametrize(
    ("target", "extra", "expected"),
    [
        # mpi-operator@v0.8.0: nvidiaDisableEnvVars appended unless runLauncherAsWorker.
        ("mpi-operator", {}, ["roles.launcher.env.0.name"]),
        ("mpi-operator", {"runLauncherAsWorker": True}, []),
        # training-operator@v1.9.4 `newLauncher`: unless `isGPULauncher`.
        ("v1", {}, ["roles.launcher.env.0.name"]),
    ],
)
def test_a_launcher_cannot_unhide_its_gpus_by_env(
    target: str, extra: dict[str, Any], expected: list[str]
):
    env = [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}]
    roles = {"launcher": {"replicas": 1, "env": env}, "worker": {"replicas": 1}}
    assert _codes("mpi", target, roles, **extra) == expected


def test_the_empty_nvidia_value_is_the_operators_own():
    env = [{"name": "NVIDIA_VISIBLE_DEVICES", "value": ""}]
    roles = {"launcher": {"replicas": 1, "env": env}, "worker": {"replicas": 1}}
    assert _codes("mpi", "mpi-operator", roles) == []


@pytest.mark.parametrize(
    ("implementation", "expected"),
    [
        # mpi-operator@v0.8.0: intelEnvVars only for mpiImplementation Intel.
        ("Intel", ["env.0.name"]),
        ("OpenMPI", []),
    ],
)
def test_intel_variables_follow_the_implementation(
    implementation: str, expected: list[str]
):
    env = [{"name": "I_MPI_HYDRA_HOST_FILE", "value": "/h"}]
    extra = {"env": env, "mpiImplementation": implementation}
    assert _codes("mpi", "mpi-operator", MPI, **extra) == expected


def test_mpijob_v1_keeps_the_jobs_intel_bootstrap():
    # training-operator@v1.9.4 `newLauncher` adds I_MPI_HYDRA_BOOTSTRAP_EXEC only when
    # the container has none (`hasIntelMPIBootstrapValues`): the job's is kept.
    env = [{"name": "I_MPI_HYDRA_BOOTSTRAP_EXEC", "value": "/my/rsh"}]
    assert _codes("mpi", "v1", MPI, env=env) == []


def test_an_mpijob_sidecar_gets_nothing():
    # Both operators fill only `Containers[0]`: a sidecar keeps its own.
    side = [{"name": "side", "image": "x:1", "env": OMPI_HOSTFILE}]
    assert _codes("mpi", "mpi-operator", MPI, containers=side) == []


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        # PET_NPROC_PER_NODE in a worker-only job's pods only from 1.8
        # (kubeflow/training-operator#1948; kubeflow-api.md §6.2). On 1.7.0 it is
        # inside the master branch of envvar.go `setPodEnv` (test_env_contract.py).
        ("training-operator-1.7", []),
        ("training-operator-1.9", ["env.0.name"]),
    ],
)
def test_a_worker_only_jobs_nproc_from_18(target: str, expected: list[str]):
    env = [{"name": "PET_NPROC_PER_NODE", "value": "8"}]
    roles = {"worker": {"replicas": 2}}
    extra = {"env": env, "elasticPolicy": {}, "nprocPerNode": 2}
    assert _codes("pytorch", target, roles, **extra) == expected
