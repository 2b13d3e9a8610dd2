"""Renderer decisions that users rely on, one per test (kubeflow-api.md §3)."""

from __future__ import annotations

from typing import Any

import pytest

from kgen.kinds import kind_for
from kgen.kinds.targets import TARGETS
from kgen.render.base import Environment
from kgen.render.job import render_job

PYTORCH: dict[str, Any] = {
    "name": "train",
    "framework": "pytorch",
    "image": "repo/train:1",
    "roles": {"master": {"replicas": 1}, "worker": {"replicas": 2}},
}
TF: dict[str, Any] = {
    "name": "train",
    "framework": "tensorflow",
    "image": "repo/train:1",
    "roles": {"worker": {"replicas": 2}},
}


def render(data: dict[str, Any], target: str = "v1", namespace: str | None = None):
    model = kind_for(data["framework"]).model()
    manifests, problems = render_job(
        model.model_validate(data), Environment("e", TARGETS[target], namespace)
    )
    return manifests[0].body, problems


def test_pytorch_v1_carries_operator_defaults_explicitly():
    body, problems = render(PYTORCH, namespace="ml")
    assert problems == []
    assert body["metadata"] == {
        "name": "train",
        "namespace": "ml",
        "labels": {"app.kubernetes.io/managed-by": "kgen"},
    }
    assert body["spec"]["runPolicy"] == {"cleanPodPolicy": "None", "suspend": False}
    assert body["spec"]["nprocPerNode"] == "1"
    for role in ("Master", "Worker"):
        spec = body["spec"]["pytorchReplicaSpecs"][role]
        assert spec["restartPolicy"] == "OnFailure"
        (container,) = spec["template"]["spec"]["containers"]
        assert container["name"] == "pytorch"
        assert container["ports"] == [
            {"name": "pytorchjob-port", "containerPort": 23456, "protocol": "TCP"}
        ]


def test_nproc_per_node_follows_gpus_and_never_defaults_to_auto():
    body, _ = render({**PYTORCH, "resources": {"gpu": 4}})
    assert body["spec"]["nprocPerNode"] == "4"
    body, _ = render({**PYTORCH, "nprocPerNode": "auto"})
    assert body["spec"]["nprocPerNode"] == "auto"


def test_gpus_go_into_limits_under_their_resource_name():
    body, _ = render(
        {
            **PYTORCH,
            "resources": {
                "gpu": 2,
                "gpuResource": "amd.com/gpu",
                "limits": {"memory": "8Gi"},
            },
        }
    )
    container = body["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"][
        "containers"
    ][0]
    assert container["resources"] == {"limits": {"amd.com/gpu": "2", "memory": "8Gi"}}


@pytest.mark.parametrize(
    ("roles", "target", "expected"),
    [
        ({"worker": {"replicas": 2}}, "v1", "None"),
        ({"worker": {"replicas": 2}}, "v1beta2", "Running"),
        ({"worker": {"replicas": 2}, "ps": {"replicas": 1}}, "v1", "Running"),
    ],
)
def test_tf_clean_pod_policy_defaults(
    roles: dict[str, Any], target: str, expected: str
):
    body, _ = render({**TF, "roles": roles}, target)
    policy = body["spec"].get("runPolicy", body["spec"])
    assert policy["cleanPodPolicy"] == expected


def test_tf_defaults_restart_never_and_keys_camel_case():
    body, _ = render(
        {
            **TF,
            "roles": {
                "chief": {"replicas": 1},
                "ps": {"replicas": 1},
                "evaluator": {"replicas": 1},
            },
        }
    )
    specs = body["spec"]["tfReplicaSpecs"]
    assert list(specs) == ["Chief", "PS", "Evaluator"]
    assert {s["restartPolicy"] for s in specs.values()} == {"Never"}


@pytest.mark.parametrize(
    ("target", "api_version", "spec_keys"),
    [
        ("v1", "kubeflow.org/v1", ["runPolicy", "nprocPerNode", "pytorchReplicaSpecs"]),
        (
            "v1-legacy",
            "kubeflow.org/v1",
            ["cleanPodPolicy", "backoffLimit", "pytorchReplicaSpecs"],
        ),
        (
            "v1beta2",
            "kubeflow.org/v1beta2",
            ["cleanPodPolicy", "backoffLimit", "pytorchReplicaSpecs"],
        ),
    ],
)
def test_run_fields_sit_where_the_target_keeps_them(
    target: str, api_version: str, spec_keys: list[str]
):
    body, problems = render({**PYTORCH, "runPolicy": {"backoffLimit": 2}}, target)
    assert problems == []
    assert body["apiVersion"] == api_version
    assert list(body["spec"]) == spec_keys


def test_a_field_the_target_cannot_express_is_an_error_naming_it():
    _, problems = render(
        {**PYTORCH, "runPolicy": {"activeDeadlineSeconds": 60}}, "v1beta1"
    )
    assert [(p.code, p.path) for p in problems] == [
        ("target-unsupported-field", ("runPolicy", "activeDeadlineSeconds"))
    ]
    assert "v1beta1" in problems[0].message


def test_worker_only_pytorch_needs_master_on_old_targets():
    _, problems = render({**PYTORCH, "roles": {"worker": {"replicas": 2}}}, "v1-legacy")
    assert [p.code for p in problems] == ["target-needs-master"]


def test_roles_alike_share_one_pod_template_and_others_get_their_own():
    data = {
        **TF,
        "roles": {
            "chief": {"replicas": 1},
            "worker": {"replicas": 2},
            "ps": {"replicas": 1, "image": "repo/ps:1"},
        },
    }
    specs = render(data)[0]["spec"]["tfReplicaSpecs"]
    assert specs["Chief"]["template"] is specs["Worker"]["template"]
    assert specs["PS"]["template"] is not specs["Chief"]["template"]
    assert specs["PS"]["template"]["spec"]["containers"][0]["image"] == "repo/ps:1"


def test_every_role_setting_counts_when_roles_are_compared():
    # A setting same_settings does not look at would let two different pods share one
    # template.
    from kgen.render import roles

    compared = {*roles._TYPED, *roles._AS_WRITTEN, *roles._LISTS_AS_WRITTEN, "probes"}
    assert compared == set(roles.RoleSettings._fields)
