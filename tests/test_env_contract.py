"""What the operator injects into each replica (kubeflow-api.md §6), as `kgen explain` shows it."""

from __future__ import annotations

import json
from typing import Any

from kgen.kinds import kind_for
from kgen.kinds.base import Replica
from kgen.kinds.pytorch.spec import PyTorchJobSpec
from kgen.kinds.targets import TARGETS
from kgen.kinds.tensorflow.spec import TFJobSpec
from kgen.render.base import Environment
from kgen.spec.job import JobSpec


def replicas(spec: JobSpec, env: Environment) -> list[Replica]:
    return kind_for(spec.framework).env_contract(spec, env)


def _env(target: str = "v1", namespace: str | None = "ml") -> Environment:
    return Environment("e", TARGETS[target], namespace)


def _pytorch(**extra: Any) -> PyTorchJobSpec:
    data = {
        "name": "ddp",
        "framework": "pytorch",
        "image": "x:1",
        "roles": {"master": {"replicas": 1}, "worker": {"replicas": 2}},
    }
    return PyTorchJobSpec.model_validate(data | extra)


def _tf(roles: dict[str, Any], **extra: Any) -> TFJobSpec:
    return TFJobSpec.model_validate(
        {"name": "tf", "framework": "tensorflow", "image": "x:1", "roles": roles}
        | extra
    )


def test_pytorch_with_master():
    pods = replicas(_pytorch(nprocPerNode=4), _env())
    assert [p.pod for p in pods] == ["ddp-master-0", "ddp-worker-0", "ddp-worker-1"]
    assert pods[2].env == {
        "PYTHONUNBUFFERED": "1",
        "MASTER_ADDR": "ddp-master-0",
        "PET_MASTER_ADDR": "ddp-master-0",
        "MASTER_PORT": "23456",
        "PET_MASTER_PORT": "23456",
        "WORLD_SIZE": "12",
        "RANK": "2",
        "PET_NODE_RANK": "2",
        "PET_NPROC_PER_NODE": "4",
        "PET_NNODES": "3",
    }
    assert pods[0].env["RANK"] == "0" and pods[0].env["MASTER_ADDR"] == "ddp-master-0"


def test_pytorch_non_numeric_nproc_counts_one_per_pod():
    assert replicas(_pytorch(nprocPerNode="gpu"), _env())[0].env["WORLD_SIZE"] == "3"


def test_pytorch_elastic_worker_only_has_no_master_and_no_rank():
    spec = _pytorch(
        roles={"worker": {"replicas": 3}},
        elasticPolicy={
            "minReplicas": 2,
            "maxReplicas": 5,
            "rdzvId": "run7",
            "maxRestarts": 3,
            "rdzvConf": [{"key": "timeout", "value": "900"}],
        },
    )
    (first, *_rest) = replicas(spec, _env())
    assert first.env == {
        "PYTHONUNBUFFERED": "1",
        "PET_NPROC_PER_NODE": "1",
        "PET_NNODES": "2:5",
        "PET_RDZV_ENDPOINT": "ddp-worker-0:23456",
        "PET_RDZV_BACKEND": "c10d",
        "PET_RDZV_ID": "run7",
        "PET_RDZV_CONF": "timeout=900",
        "PET_MAX_RESTARTS": "3",
    }


def test_pytorch_elastic_with_its_own_rendezvous_host():
    spec = _pytorch(
        elasticPolicy={
            "rdzvHost": "etcd.ml.svc",
            "rdzvPort": 2379,
            "rdzvBackend": "etcd",
        }
    )
    env = replicas(spec, _env())[1].env
    assert (env["PET_RDZV_ENDPOINT"], env["PET_RDZV_BACKEND"], env["PET_NNODES"]) == (
        "etcd.ml.svc:2379",
        "etcd",
        "2:2",
    )
    assert env["RANK"] == "1", "with a master, elastic jobs still get ranks"


def test_pytorch_on_older_operators():
    pods = replicas(_pytorch(), _env("v1beta2"))
    assert pods[0].env == {
        "MASTER_ADDR": "localhost",
        "MASTER_PORT": "23456",
        "WORLD_SIZE": "3",
        "RANK": "0",
        "PYTHONUNBUFFERED": "0",
    }
    assert pods[1].env["MASTER_ADDR"] == "ddp-master-0"


def _config(pod_env: dict[str, str]) -> dict[str, Any]:
    return json.loads(pod_env["TF_CONFIG"])


def test_tf_with_chief_ps_and_evaluator():
    pods = replicas(
        _tf(
            {
                "chief": {"replicas": 1},
                "worker": {"replicas": 2},
                "ps": {"replicas": 1},
                "evaluator": {"replicas": 1},
            }
        ),
        _env(),
    )
    assert [p.pod for p in pods] == [
        "tf-chief-0",
        "tf-worker-0",
        "tf-worker-1",
        "tf-ps-0",
        "tf-evaluator-0",
    ]
    assert pods[2].env["TF_CONFIG"] == (
        '{"cluster":{"chief":["tf-chief-0.ml.svc:2222"],"evaluator":["tf-evaluator-0.ml.svc:2222"],'
        '"ps":["tf-ps-0.ml.svc:2222"],"worker":["tf-worker-0.ml.svc:2222","tf-worker-1.ml.svc:2222"]},'
        '"task":{"type":"worker","index":1},"environment":"cloud"}'
    )
    assert _config(pods[4].env)["task"] == {"type": "evaluator", "index": 0}


def test_tf_without_chief():
    pods = replicas(
        _tf({"worker": {"replicas": 2}, "ps": {"replicas": 2}}), _env(namespace=None)
    )
    config = _config(pods[0].env)
    assert list(config["cluster"]) == ["ps", "worker"]
    assert config["cluster"]["ps"][1] == "tf-ps-1.<namespace>.svc:2222"


def test_tf_single_replica_gets_no_tf_config():
    (only,) = replicas(_tf({"worker": {"replicas": 1}}), _env())
    assert only.env == {}


def test_tf_dynamic_workers_see_a_sparse_cluster():
    pods = replicas(
        _tf(
            {"worker": {"replicas": 2}, "ps": {"replicas": 1}}, enableDynamicWorker=True
        ),
        _env(),
    )
    assert (
        pods[1].env["TF_CONFIG"]
        == '{"cluster":{"worker":{"1":"tf-worker-1.ml.svc:2222"},"ps":["tf-ps-0.ml.svc:2222"]},"task":{"type":"worker","index":1}}'
    )
