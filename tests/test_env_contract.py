"""What the operator injects into each replica (kubeflow-api.md §6), as `kgen explain` shows it."""

from __future__ import annotations

import json
from typing import Any

import pytest

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
    # Target v1 is training-operator 1.7: kubeflow/training-operator@v1.7.0:
    # pkg/controller.v1/pytorch/envvar.go `setPodEnv` and master.go, as #1840 wrote
    # them: the operator's order, PET_NPROC_PER_NODE inside the master branch between
    # RANK and PET_NODE_RANK, WORLD_SIZE = pods x nprocPerNode.
    pods = replicas(_pytorch(nprocPerNode=4), _env())
    assert [p.pod for p in pods] == ["ddp-master-0", "ddp-worker-0", "ddp-worker-1"]
    assert list(pods[2].env.items()) == [
        ("PYTHONUNBUFFERED", "1"),
        ("MASTER_PORT", "23456"),
        ("PET_MASTER_PORT", "23456"),
        ("MASTER_ADDR", "ddp-master-0"),
        ("PET_MASTER_ADDR", "ddp-master-0"),
        ("WORLD_SIZE", "12"),
        ("RANK", "2"),
        ("PET_NPROC_PER_NODE", "4"),
        ("PET_NODE_RANK", "2"),
        ("PET_NNODES", "3"),
    ]
    assert {p.where for p in pods} == {"every container"}
    assert pods[0].env["RANK"] == "0" and pods[0].env["MASTER_ADDR"] == "ddp-master-0"


def test_pytorch_non_numeric_nproc_counts_one_per_pod():
    assert replicas(_pytorch(nprocPerNode="gpu"), _env())[0].env["WORLD_SIZE"] == "3"


def test_pytorch_elastic_worker_only_has_no_master_and_no_rank():
    # kubeflow/training-operator@v1.7.0 (target v1):pkg/controller.v1/pytorch/envvar.go
    # `setPodEnv` and elastic.go `Generate`: no master branch, so no PET_NPROC_PER_NODE
    # either (from 1.8 every pod gets it: test_pytorch_worker_only_nproc_from_18);
    # the elastic group in the operator's order.
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
    assert list(first.env.items()) == [
        ("PYTHONUNBUFFERED", "1"),
        ("PET_RDZV_ENDPOINT", "ddp-worker-0:23456"),
        ("PET_RDZV_BACKEND", "c10d"),
        ("PET_NNODES", "2:5"),
        ("PET_MAX_RESTARTS", "3"),
        ("PET_RDZV_ID", "run7"),
        ("PET_RDZV_CONF", "timeout=900"),
    ]


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


@pytest.mark.parametrize(
    "target", ["v1beta1", "v1beta2", "v1-legacy", "training-operator-1.3"]
)
def test_pytorch_on_pytorch_operator_and_training_operator_13(target: str):
    # kubeflow/pytorch-operator@v0.7.0:pkg/controller.v1/pytorch/pod.go `setClusterSpec`:
    # five variables in this order; the master reaches itself at localhost. For 1.3 the
    # reference document's statement (trainer#1358 leaves it unverified).
    pods = replicas(_pytorch(), _env(target))
    assert list(pods[0].env.items()) == [
        ("MASTER_PORT", "23456"),
        ("MASTER_ADDR", "localhost"),
        ("WORLD_SIZE", "3"),
        ("RANK", "0"),
        ("PYTHONUNBUFFERED", "0"),
    ]
    assert pods[1].env["MASTER_ADDR"] == "ddp-master-0"
    assert pods[2].env["RANK"] == "2"


@pytest.mark.parametrize(
    "target",
    ["training-operator-1.4", "training-operator-1.5", "training-operator-1.6"],
)
def test_pytorch_on_training_operator_14_to_16(target: str):
    # kubeflow/training-operator@v1.6.0:pkg/controller.v1/pytorch/envvar.go `setPodEnv`:
    # PYTHONUNBUFFERED=0 first, no PET_*, WORLD_SIZE = number of pods, the master at
    # its own service name (no localhost from 1.4).
    pods = replicas(_pytorch(), _env(target))
    assert list(pods[0].env.items()) == [
        ("PYTHONUNBUFFERED", "0"),
        ("MASTER_PORT", "23456"),
        ("MASTER_ADDR", "ddp-master-0"),
        ("WORLD_SIZE", "3"),
        ("RANK", "0"),
    ]
    assert pods[2].env["RANK"] == "2"


def test_pytorch_elastic_on_training_operator_16():
    # kubeflow/training-operator@v1.6.0:pkg/controller.v1/pytorch/elastic.go: the
    # elastic group after the master's variables, no PET_NPROC_PER_NODE.
    spec = _pytorch(elasticPolicy={"minReplicas": 1, "maxReplicas": 4})
    env = replicas(spec, _env("training-operator-1.6"))[1].env
    assert list(env) == [
        "PYTHONUNBUFFERED",
        "MASTER_PORT",
        "MASTER_ADDR",
        "WORLD_SIZE",
        "RANK",
        "PET_RDZV_ENDPOINT",
        "PET_RDZV_BACKEND",
        "PET_NNODES",
    ]
    assert env["PET_NNODES"] == "1:4"


@pytest.mark.parametrize(
    ("target", "unbuffered"),
    [("training-operator-1.7", "1"), ("training-operator-1.9", "1"), ("v1", "1")],
)
def test_pytorch_from_training_operator_17(target: str, unbuffered: str):
    # kubeflow/training-operator@v1.9.x:pkg/controller.v1/pytorch/envvar.go; 1 from
    # trainer#1860 (unverified for 1.7.0 itself: the reference document's statement).
    pods = replicas(_pytorch(), _env(target))
    assert pods[0].env["PYTHONUNBUFFERED"] == unbuffered
    assert pods[0].env["MASTER_ADDR"] == "ddp-master-0", "no localhost from 1.4"
    assert pods[0].env["PET_NNODES"] == "3"


@pytest.mark.parametrize(
    "target", ["v1beta2", "training-operator-1.3", "training-operator-1.6", "v1"]
)
def test_pytorch_ports_are_the_ones_the_job_moves(target: str):
    # kubeflow-api.md §6.2: MASTER_PORT/PET_MASTER_PORT are the containerPort of the
    # Master's port *named* pytorchjob-port, and PET_RDZV_ENDPOINT's port is rdzvPort
    # or the Worker's (trainer@v1.9.4:pkg/controller.v1/pytorch/master.go, elastic.go
    # `getPortFromPyTorchJob`). A job that moves the port moves what the pods read.
    spec = _pytorch(
        roles={
            "master": {
                "replicas": 1,
                "ports": [{"name": "pytorchjob-port", "containerPort": 29500}],
            },
            "worker": {
                "replicas": 2,
                "ports": [{"name": "pytorchjob-port", "containerPort": 29400}],
            },
        },
        **(
            {}
            if target in ("v1beta2", "training-operator-1.3")
            else {"elasticPolicy": {}}
        ),
    )
    env = replicas(spec, _env(target))[1].env
    assert env["MASTER_PORT"] == "29500"
    assert env.get("PET_MASTER_PORT", "29500") == "29500"
    assert env.get("PET_RDZV_ENDPOINT", "ddp-worker-0:29400") == "ddp-worker-0:29400"


def test_pytorch_job_wide_port_moves_master_port():
    spec = _pytorch(ports=[{"name": "pytorchjob-port", "containerPort": 29500}])
    assert {p.env["MASTER_PORT"] for p in replicas(spec, _env())} == {"29500"}


def test_host_names_carry_the_run_id():
    # The operator names pods and addresses after job.Name, the object's real name.
    spec = _pytorch(runId="r7")
    pods = replicas(spec, _env())
    assert pods[1].pod == "ddp-r7-worker-0"
    assert pods[1].env["MASTER_ADDR"] == "ddp-r7-master-0"
    tf = replicas(_tf({"worker": {"replicas": 2}}, runId="r7"), _env())
    assert _config(tf[0].env)["cluster"]["worker"][1] == "tf-r7-worker-1.ml.svc:2222"


def test_host_names_carry_the_content_hash_explain_gets():
    named = kind_for("pytorch").env_contract(_pytorch(), _env(), name="ddp-0a1b2c3d")
    assert named[2].env["MASTER_ADDR"] == "ddp-0a1b2c3d-master-0"


def _config(pod_env: dict[str, str]) -> dict[str, Any]:
    return json.loads(pod_env["TF_CONFIG"])


def test_tf_with_chief_ps_and_evaluator():
    # kubeflow/training-operator@v1.9.x:pkg/controller.v1/tensorflow/tensorflow.go
    # `genClusterSpec`: every role, evaluator included, keys sorted.
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


@pytest.mark.parametrize("target", ["v1beta2", "training-operator-1.6", "v1"])
def test_tf_each_role_listed_at_its_own_port(target: str):
    # kubeflow-api.md §6.3: each address's port is that type's port named tfjob-port,
    # or 2222 if absent (trainer@v1.9.4:pkg/controller.v1/tensorflow/tensorflow.go
    # `genClusterSpec`, GetPortFromTFJob); a job that moves it moves the cluster.
    spec = _tf(
        {
            "chief": {"replicas": 1},
            "worker": {
                "replicas": 2,
                "ports": [{"name": "tfjob-port", "containerPort": 3333}],
            },
        }
    )
    pods = replicas(spec, _env(target))
    assert _config(pods[0].env)["cluster"] == {
        "chief": ["tf-chief-0.ml.svc:2222"],
        "worker": ["tf-worker-0.ml.svc:3333", "tf-worker-1.ml.svc:3333"],
    }


def test_tf_sparse_worker_lists_itself_at_its_port():
    spec = _tf(
        {"worker": {"replicas": 2}},
        ports=[{"name": "tfjob-port", "containerPort": 4444}],
        enableDynamicWorker=True,
    )
    worker = _config(replicas(spec, _env())[1].env)["cluster"]["worker"]
    assert worker == {"1": "tf-worker-1.ml.svc:4444"}


def test_tf_without_chief():
    pods = replicas(
        _tf({"worker": {"replicas": 2}, "ps": {"replicas": 2}}), _env(namespace=None)
    )
    config = _config(pods[0].env)
    assert list(config["cluster"]) == ["ps", "worker"]
    assert config["cluster"]["ps"][1] == "tf-ps-1.<namespace>.svc:2222"


@pytest.mark.parametrize("target", ["v1", "training-operator-1.3", "v1-legacy"])
def test_tf_single_replica_gets_no_tf_config(target: str):
    # tf-operator#1080 `isDistributed` (tf-operator v1.1.0 and training-operator).
    (only,) = replicas(_tf({"worker": {"replicas": 1}}), _env(target))
    assert only.env == {}
    assert only.why_empty == "a single-replica TFJob gets no TF_CONFIG"
    assert only.where == "container tensorflow"


@pytest.mark.parametrize("target", ["v1beta1", "v1beta2"])
def test_tf_before_v101_leaves_the_evaluator_out_and_configures_a_single_replica(
    target: str,
):
    # kubeflow/tf-operator@v0.5.3:pkg/controller.v1beta2/tensorflow/pod.go
    # `setClusterSpec`: "evaluator is not part of training cluster" until
    # tf-operator#1146 (v1.0.1); no isDistributed skip yet; every container.
    pods = replicas(
        _tf({"chief": {"replicas": 1}, "evaluator": {"replicas": 1}}), _env(target)
    )
    assert pods[1].env["TF_CONFIG"] == (
        '{"cluster":{"chief":["tf-chief-0.ml.svc:2222"]},'
        '"task":{"type":"evaluator","index":0},"environment":"cloud"}'
    )
    (only,) = replicas(_tf({"worker": {"replicas": 1}}), _env(target))
    assert only.env["TF_CONFIG"] == (
        '{"cluster":{"worker":["tf-worker-0.ml.svc:2222"]},'
        '"task":{"type":"worker","index":0},"environment":"cloud"}'
    )
    assert only.where == "every container"


_SPARSE_ROLES = {
    "chief": {"replicas": 1},
    "worker": {"replicas": 2},
    "ps": {"replicas": 2},
    "evaluator": {"replicas": 1},
}


@pytest.mark.parametrize(
    ("target", "key"),
    [
        ("v1-legacy", "sparseCluster"),
        ("training-operator-1.3", "sparseCluster"),
        ("training-operator-1.6", "sparseCluster"),
        ("training-operator-1.7", "cluster"),
        ("v1", "cluster"),
    ],
)
def test_tf_sparse_cluster_per_role_and_release(target: str, key: str):
    # kubeflow/training-operator@v1.6.0:pkg/controller.v1/tensorflow/tensorflow.go
    # `convertClusterSpecToSparseClusterSpec`: the key sparseCluster until
    # trainer#1798 (1.7.0) renamed it cluster; a PS lists only itself, chief and
    # evaluator get empty lists.
    pods = replicas(_tf(_SPARSE_ROLES, enableDynamicWorker=True), _env(target))
    by_pod = {p.pod: p.env["TF_CONFIG"] for p in pods}
    assert by_pod["tf-chief-0"] == (
        f'{{"{key}":{{"worker":{{}},"ps":[]}},"task":{{"type":"chief","index":0}}}}'
    )
    assert by_pod["tf-evaluator-0"] == (
        f'{{"{key}":{{"worker":{{}},"ps":[]}},"task":{{"type":"evaluator","index":0}}}}'
    )
    assert by_pod["tf-ps-1"] == (
        f'{{"{key}":{{"worker":{{}},"ps":["tf-ps-1.ml.svc:2222"]}},'
        '"task":{"type":"ps","index":1}}'
    )
    assert by_pod["tf-worker-1"] == (
        f'{{"{key}":{{"worker":{{"1":"tf-worker-1.ml.svc:2222"}},'
        '"ps":["tf-ps-0.ml.svc:2222","tf-ps-1.ml.svc:2222"]},'
        '"task":{"type":"worker","index":1}}'
    )


def test_tf_sparse_worker_without_ps_gets_null():
    # The Go struct's nil PS slice marshals as null for a worker of a job without PS.
    pods = replicas(_tf({"worker": {"replicas": 2}}, enableDynamicWorker=True), _env())
    assert pods[0].env["TF_CONFIG"] == (
        '{"cluster":{"worker":{"0":"tf-worker-0.ml.svc:2222"},"ps":null},'
        '"task":{"type":"worker","index":0}}'
    )


def test_explain_limit_keeps_the_contract_linear():
    # 10,000 workers and 10,000 PS: a few pods per role, each cluster list elided.
    spec = _tf({"worker": {"replicas": 10_000}, "ps": {"replicas": 10_000}})
    pods = kind_for("tensorflow").env_contract(spec, _env(), limit=3)
    assert [(p.pod, p.skipped) for p in pods] == [
        ("tf-worker-0", 0),
        ("tf-worker-1", 0),
        ("tf-worker-9999", 9997),
        ("tf-ps-0", 0),
        ("tf-ps-1", 0),
        ("tf-ps-9999", 9997),
    ]
    assert _config(pods[2].env)["cluster"]["worker"] == [
        "tf-worker-0.ml.svc:2222",
        "tf-worker-1.ml.svc:2222",
        "... 9998 more",
    ]


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


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        # kubeflow/training-operator@v1.7.0:pkg/controller.v1/pytorch/envvar.go
        # `setPodEnv`: PET_NPROC_PER_NODE only inside the master branch, as #1840 (in
        # the v1.7.0 release notes) added it. The branch-free form is #1948, opened
        # 2023-11-19, after the v1.7.0 tag (Kubeflow's manifests synced from the tag
        # on 2023-11-01), and listed in CHANGELOG.md's v1.7.0...v1.8.0 range.
        ("training-operator-1.7", None),
        # kubeflow/training-operator#1948 sets it in every pod whenever
        # spec.nprocPerNode is set (kubeflow-api.md §6.2), after the master branch and
        # before the elastic group.
        ("training-operator-1.8", "2"),
        ("training-operator-1.9", "2"),
    ],
)
def test_pytorch_worker_only_nproc_from_18(target: str, expected: str | None):
    spec = _pytorch(roles={"worker": {"replicas": 2}}, nprocPerNode=2, elasticPolicy={})
    first = replicas(spec, _env(target))[0]
    assert first.env.get("PET_NPROC_PER_NODE") == expected
    if expected is not None:
        assert list(first.env)[:3] == [
            "PYTHONUNBUFFERED",
            "PET_NPROC_PER_NODE",
            "PET_RDZV_ENDPOINT",
        ]


@pytest.mark.parametrize(
    ("target", "tail"),
    [
        # 1.7.0: inside the master branch, between RANK and PET_NODE_RANK.
        ("training-operator-1.7", ["RANK", "PET_NPROC_PER_NODE", "PET_NODE_RANK"]),
        # kubeflow/training-operator#1948 moved the append out of the master branch
        # of envvar.go `setPodEnv`, to after it: behind PET_NODE_RANK, ahead of
        # PET_NNODES or the elastic group.
        ("training-operator-1.8", ["RANK", "PET_NODE_RANK", "PET_NPROC_PER_NODE"]),
        ("training-operator-1.9", ["RANK", "PET_NODE_RANK", "PET_NPROC_PER_NODE"]),
    ],
)
def test_pytorch_master_job_nproc_place_per_release(target: str, tail: list[str]):
    pods = replicas(_pytorch(nprocPerNode=4), _env(target))
    for pod in pods:
        names = list(pod.env)
        assert names[-4:] == [*tail, "PET_NNODES"], pod.pod
        assert pod.env["PET_NPROC_PER_NODE"] == "4"
