"""What the operators inject into each pod of the newer kinds, as `kgen explain` shows it.

Sources, by kind (file and tag of the operator's code):
- MPIJob v2beta1: kubeflow/mpi-operator@v0.8.0:pkg/controller/mpi_job_controller.go
  (`newLauncherPodTemplate`, `newWorker`).
- MPIJob v1: kubeflow/training-operator@v1.9.4:pkg/controller.v1/mpi/mpijob_controller.go
  (`newLauncher`; `newWorker` adds no env).
- XGBoostJob: kubeflow/training-operator pkg/controller.v1/xgboost/xgboost.go
  (`SetPodEnv`, read in the v1.4-v1.6 line; no later change is recorded).
- JAXJob: kubeflow/training-operator@v1.9.x:pkg/controller.v1/jax/envvar.go (`setPodEnv`).
- PaddleJob: kubeflow/training-operator@v1.9.x:pkg/controller.v1/paddlepaddle/envvar.go
  (`setPodEnv`).
"""

from __future__ import annotations

from typing import Any

from kgen.kinds import kind_for
from kgen.kinds.base import Replica
from kgen.kinds.targets import TARGETS
from kgen.render.base import Environment


def _contract(target: str, data: dict[str, Any]) -> list[Replica]:
    kind = kind_for(data["framework"])
    spec = kind.model().model_validate({"name": "j", "image": "x:1"} | data)
    return kind.env_contract(spec, Environment("e", TARGETS[target], "ml"))


def _mpi(**extra: Any) -> dict[str, Any]:
    roles = {"launcher": {"replicas": 1}, "worker": {"replicas": 2}}
    return {"framework": "mpi", "roles": roles} | extra


OPENMPI_LAUNCHER = {
    "K_MPI_JOB_ROLE": "launcher",
    "OMPI_MCA_orte_keep_fqdn_hostnames": "true",
    "OMPI_MCA_orte_default_hostfile": "/etc/mpi/hostfile",
    "OMPI_MCA_plm_rsh_args": "-o ConnectionAttempts=10",
    "OMPI_MCA_orte_set_default_slots": "4",
    "NVIDIA_VISIBLE_DEVICES": "",
    "NVIDIA_DRIVER_CAPABILITIES": "",
}


def test_mpi_operator_openmpi_slots_follow_the_worker_gpus():
    pods = _contract("mpi-operator", _mpi(resources={"gpu": 4}))
    assert [p.pod for p in pods] == ["j-launcher", "j-worker-0", "j-worker-1"]
    assert pods[0].env == OPENMPI_LAUNCHER
    assert list(pods[0].env) == list(OPENMPI_LAUNCHER), "appended in this order"
    assert pods[1].env == pods[2].env == {"K_MPI_JOB_ROLE": "worker"}


def test_mpi_operator_intel_and_mpich():
    intel = _contract("mpi-operator", _mpi(mpiImplementation="Intel", slotsPerWorker=2))
    assert intel[0].env == {
        "K_MPI_JOB_ROLE": "launcher",
        "I_MPI_HYDRA_HOST_FILE": "/etc/mpi/hostfile",
        "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS": "-o ConnectionAttempts=10",
        "I_MPI_PERHOST": "2",
        "NVIDIA_VISIBLE_DEVICES": "",
        "NVIDIA_DRIVER_CAPABILITIES": "",
    }
    mpich = _contract("mpi-operator", _mpi(mpiImplementation="MPICH"))
    assert mpich[0].env == {
        "K_MPI_JOB_ROLE": "launcher",
        "HYDRA_HOST_FILE": "/etc/mpi/hostfile",
        "HYDRA_LAUNCH_EXTRA_ARGS": "-o ConnectionAttempts=10",
        "NVIDIA_VISIBLE_DEVICES": "",
        "NVIDIA_DRIVER_CAPABILITIES": "",
    }


def test_mpi_operator_launcher_as_worker_keeps_its_gpus():
    pods = _contract("mpi-operator", _mpi(runLauncherAsWorker=True))
    assert "NVIDIA_VISIBLE_DEVICES" not in pods[0].env
    assert pods[0].env["OMPI_MCA_orte_set_default_slots"] == "1"


def test_mpijob_v1_hides_gpus_only_from_a_launcher_without_them():
    cpu = _contract("v1", _mpi())
    assert cpu[0].env == {
        "OMPI_MCA_plm_rsh_agent": "/etc/mpi/kubexec.sh",
        "OMPI_MCA_orte_default_hostfile": "/etc/mpi/hostfile",
        "NVIDIA_VISIBLE_DEVICES": "",
        "NVIDIA_DRIVER_CAPABILITIES": "",
        "I_MPI_HYDRA_BOOTSTRAP_EXEC": "/etc/mpi/kubexec.sh",
    }
    assert cpu[1] == Replica(
        "j-worker-0", {}, "training-operator gives MPIJob v1 workers no variables"
    )
    roles = {"launcher": {"replicas": 1, "resources": {"gpu": 1}}}
    gpu = _contract("v1", {"framework": "mpi", "roles": roles})
    assert "NVIDIA_VISIBLE_DEVICES" not in gpu[0].env


def test_xgboost_ranks_and_worker_addresses():
    roles = {"master": {"replicas": 1}, "worker": {"replicas": 2}}
    pods = _contract("v1", {"framework": "xgboost", "roles": roles})
    assert [p.pod for p in pods] == ["j-master-0", "j-worker-0", "j-worker-1"]
    assert pods[2].env == {
        "MASTER_PORT": "9999",
        "MASTER_ADDR": "j-master-0",
        "WORLD_SIZE": "3",
        "RANK": "2",
        "PYTHONUNBUFFERED": "0",
        "WORKER_PORT": "9999",
        "WORKER_ADDRS": "j-worker-0,j-worker-1",
    }
    assert pods[0].env["RANK"] == "0"
    alone = _contract(
        "v1", {"framework": "xgboost", "roles": {"master": {"replicas": 1}}}
    )
    assert "WORKER_ADDRS" not in alone[0].env, "only when WORLD_SIZE > 1"


def test_jax_coordinator_is_worker_zero():
    pods = _contract("v1", {"framework": "jax", "roles": {"worker": {"replicas": 3}}})
    assert pods[2] == Replica(
        "j-worker-2",
        {
            "PYTHONUNBUFFERED": "1",
            "COORDINATOR_PORT": "6666",
            "COORDINATOR_ADDRESS": "j-worker-0",
            "NUM_PROCESSES": "3",
            "PROCESS_ID": "2",
        },
        where="every container",
    )


def test_paddle_collective_and_parameter_server_modes():
    collective = _contract(
        "v1", {"framework": "paddle", "roles": {"worker": {"replicas": 2}}}
    )
    assert collective[0].env == {
        "PYTHONUNBUFFERED": "1",
        "PADDLE_JOB_ID": "j",
        "PADDLE_NNODES": "2",
        "POD_IP_DUMMY": "(the pod's status.podIP)",
        "PADDLE_MASTER": "$(POD_IP_DUMMY):36543",
    }
    assert collective[1].env["PADDLE_MASTER"] == "j-worker-0:36543"
    roles = {"master": {"replicas": 1}, "worker": {"replicas": 1}}
    ps = _contract("v1", {"framework": "paddle", "roles": roles})
    assert ps[0].env["PADDLE_SERVER_NUM"] == "1"
    assert ps[1].env == {
        "PYTHONUNBUFFERED": "1",
        "PADDLE_JOB_ID": "j",
        "PADDLE_NNODES": "2",
        "PADDLE_MASTER": "j-master-0:36543",
        "PADDLE_TRAINER_NUM": "1",
    }


def test_xgboost_long_worker_lists_are_abbreviated_for_explain():
    # Every pod gets the same WORKER_ADDRS: 10,000 workers would print 10,000 copies
    # of a 200 KB list, so explain shows its ends and its length past 8 names.
    roles = {"master": {"replicas": 1}, "worker": {"replicas": 8}}
    pods = _contract("v1", {"framework": "xgboost", "roles": roles})
    assert pods[0].env["WORKER_ADDRS"] == ",".join(f"j-worker-{i}" for i in range(8))
    roles["worker"]["replicas"] = 9
    pods = _contract("v1", {"framework": "xgboost", "roles": roles})
    assert (
        pods[0].env["WORKER_ADDRS"] == "j-worker-0,j-worker-1,...,j-worker-8 (9 names)"
    )


def test_xgboost_ports_are_the_ones_the_job_moves():
    # kubeflow/training-operator@v1.9.4:pkg/controller.v1/xgboost/xgboost.go
    # `SetPodEnv`: MASTER_PORT is getPortFromXGBoostJob(Master), WORKER_PORT
    # getPortFromXGBoostJob(Worker): each the port named xgboostjob-port.
    roles = {
        "master": {
            "replicas": 1,
            "ports": [{"name": "xgboostjob-port", "containerPort": 9100}],
        },
        "worker": {
            "replicas": 2,
            "ports": [{"name": "xgboostjob-port", "containerPort": 9200}],
        },
    }
    env = _contract("v1", {"framework": "xgboost", "roles": roles})[1].env
    assert (env["MASTER_PORT"], env["WORKER_PORT"]) == ("9100", "9200")


def test_jax_coordinator_port_is_the_one_the_job_moves():
    # kubeflow/training-operator@v1.9.4:pkg/controller.v1/jax/envvar.go `setPodEnv`:
    # COORDINATOR_PORT is getPortFromJAXJob(Worker), the port named jaxjob-port.
    data = {
        "framework": "jax",
        "ports": [{"name": "jaxjob-port", "containerPort": 7777}],
        "roles": {"worker": {"replicas": 2}},
    }
    pods = _contract("training-operator-1.9", data)
    assert {p.env["COORDINATOR_PORT"] for p in pods} == {"7777"}


def test_paddle_master_port_is_the_one_the_job_moves():
    # kubeflow/training-operator@v1.9.4:pkg/controller.v1/paddlepaddle/envvar.go
    # `setPodEnv`: PADDLE_MASTER's port is getPortFromPaddleJob of the worker
    # (collective) or the master (parameter-server mode), the port named `master`.
    data = {
        "framework": "paddle",
        "roles": {
            "worker": {
                "replicas": 2,
                "ports": [{"name": "master", "containerPort": 37000}],
            }
        },
    }
    pods = _contract("v1", data)
    assert pods[0].env["PADDLE_MASTER"] == "$(POD_IP_DUMMY):37000"
    assert pods[1].env["PADDLE_MASTER"] == "j-worker-0:37000"


def test_mpijob_v1_intel_bootstrap_only_from_17():
    # training-operator 1.7 added Intel MPI's bootstrap (#1804): the 1.6 line's
    # kubeflow/training-operator pkg/controller.v1/mpi/mpijob_controller.go (still on
    # kubeflow/common's commonv1) `newLauncher` appends the two OMPI_MCA_* and the
    # NVIDIA variables only.
    old = _contract("training-operator-1.6", _mpi())[0]
    assert "I_MPI_HYDRA_BOOTSTRAP_EXEC" not in old.env
    new = _contract("training-operator-1.7", _mpi())[0]
    # Added only where the container has none (`hasIntelMPIBootstrapValues`), into
    # the first container, as every MPIJob variable.
    assert (new.env["I_MPI_HYDRA_BOOTSTRAP_EXEC"], new.if_absent, new.where) == (
        "/etc/mpi/kubexec.sh",
        frozenset({"I_MPI_HYDRA_BOOTSTRAP_EXEC"}),
        "first container",
    )
