"""The pod as teams write it (issue 18): sidecars, init containers, volumes, ports,
probes and per-role settings rendered as users rely on, and code sync laid out as
arena lays it out."""

from __future__ import annotations

from typing import Any

import pytest

from kgen.kinds import kind_for
from kgen.kinds.targets import TARGETS
from kgen.merge.layers import Layer, merge_layers
from kgen.render.base import Environment
from kgen.render.job import render_job
from kgen.render.roles import role_settings
from kgen.spec.addons import repository_name

JOB: dict[str, Any] = {
    "name": "train",
    "framework": "pytorch",
    "image": "repo/train:1",
    "roles": {"master": {"replicas": 1}, "worker": {"replicas": 2}},
}


def _pods(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    spec = kind_for("pytorch").model().model_validate(data)
    manifests, problems = render_job(spec, Environment("e", TARGETS["v1"], None))
    assert problems == []
    replicas = manifests[0].body["spec"]["pytorchReplicaSpecs"]
    return {role: body["template"]["spec"] for role, body in replicas.items()}


def test_arena_git_sync_layout_is_reproduced_exactly():
    """arena submit pytorch --sync-mode=git --sync-source=<url> --working-dir=/root:
    git-sync with GIT_SYNC_ROOT=/code and GIT_SYNC_DEST=<repo name>, the code volume at
    <working-dir>/code in the trainer, the remote's default branch (jobgen-peers.md)."""
    url = "https://github.com/kubeflow/arena.git"
    pod = _pods(
        {**JOB, "codeSync": {"repo": url, "path": "/root/code"}, "workingDir": "/root"}
    )["Master"]
    (sync,) = pod["initContainers"]
    assert sync["args"] == [
        f"--repo={url}",
        "--root=/root/code",
        "--link=arena",
        "--depth=1",
        "--one-time",
    ], "no --ref: git-sync checks out HEAD, the default branch, as arena does"
    assert sync["volumeMounts"] == [{"name": "code-sync", "mountPath": "/root/code"}]
    (trainer,) = pod["containers"]
    assert trainer["workingDir"] == "/root"
    assert {"name": "code-sync", "mountPath": "/root/code"} in trainer["volumeMounts"]
    assert {"name": "code-sync", "emptyDir": {}} in pod["volumes"]
    # So the code is at /root/code/arena in the trainer, where arena puts it.


def test_code_sync_checkout_folder_and_working_dir_default_to_the_repository_name():
    sync = {
        "repo": "git@github.com:org/vision-training.git",
        "ref": "v2",
        "submodules": "off",
    }
    pod = _pods({**JOB, "codeSync": sync})["Master"]
    assert pod["initContainers"][0]["args"] == [
        "--repo=git@github.com:org/vision-training.git",
        "--ref=v2",
        "--root=/code",
        "--link=vision-training",
        "--depth=1",
        "--submodules=off",
        "--one-time",
    ]
    assert pod["containers"][0]["workingDir"] == "/code/vision-training"
    named = _pods({**JOB, "codeSync": {**sync, "folder": "src"}})["Master"]
    assert named["containers"][0]["workingDir"] == "/code/src"


@pytest.mark.parametrize(
    ("url", "folder"),
    [
        ("https://github.com/org/train.git", "train"),
        ("https://github.com/org/train", "train"),
        ("https://github.com/org/train/", "train"),
        ("https://github.com/org/train/.git", "train"),
        ("git@github.com:org/train.git", "train"),
        ("ssh://git@host:2222/org/train.git", "train"),
        ("https://host/", "host"),
    ],
)
def test_the_checkout_is_named_as_git_clone_names_it(url: str, folder: str):
    assert repository_name(url) == folder


def test_sidecars_init_containers_volumes_ports_and_probes_render_in_every_pod():
    pods = _pods(
        {
            **JOB,
            "initContainers": [{"name": "fetch", "image": "repo/fetch:1"}],
            "containers": [
                {
                    "name": "exporter",
                    "image": "repo/exp:1",
                    "ports": [{"containerPort": 9400}],
                    "volumeMounts": [{"name": "scratch", "mountPath": "/s"}],
                }
            ],
            "volumes": [{"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}],
            "ports": [{"name": "metrics", "containerPort": 9090}],
            "livenessProbe": {"tcpSocket": {"port": 23456}},
            "hostPID": True,
            "runtimeClassName": "nvidia",
            "resources": {"limits": {"rdma/hca": "1"}},
            "roles": {
                "master": {"replicas": 1},
                "worker": {
                    "replicas": 2,
                    "podLabels": {"tier": "w"},
                    "sharedMemory": "1Gi",
                },
            },
        }
    )
    for role, pod in pods.items():
        trainer, exporter = pod["containers"]
        assert [c["name"] for c in pod["initContainers"]] == ["fetch"]
        assert exporter["ports"] == [{"containerPort": 9400, "protocol": "TCP"}]
        assert trainer["ports"] == [
            {"name": "pytorchjob-port", "containerPort": 23456, "protocol": "TCP"},
            {"name": "metrics", "containerPort": 9090, "protocol": "TCP"},
        ]
        assert trainer["livenessProbe"] == {"tcpSocket": {"port": 23456}}
        assert trainer["resources"] == {"limits": {"rdma/hca": "1"}}
        assert "volumeMounts" not in trainer or all(
            m["name"] != "scratch" for m in trainer["volumeMounts"]
        ), "a volume without mountPath is the sidecars'"
        assert (pod["hostPID"], pod["runtimeClassName"]) == (True, "nvidia")
        assert {"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}} in pod["volumes"]
        shm = {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}}
        assert (shm in pod["volumes"]) == (role == "Worker"), "sharedMemory per role"


def test_a_port_named_as_the_operators_moves_it_and_the_env_contract_reads_it():
    data = {**JOB, "ports": [{"name": "pytorchjob-port", "containerPort": 29500}]}
    trainer = _pods(data)["Master"]["containers"][0]
    assert trainer["ports"] == [
        {"name": "pytorchjob-port", "containerPort": 29500, "protocol": "TCP"}
    ]
    spec = kind_for("pytorch").model().model_validate(data)
    master = spec.roles.master  # type: ignore[attr-defined]
    settings = role_settings(spec, "master", master)
    assert settings.port("pytorchjob-port", 23456) == 29500
    assert settings.port("other", 1) == 1


def test_overlays_merge_containers_by_name_ports_by_number_mounts_by_path():
    base = {
        "containers": [
            {
                "name": "exporter",
                "image": "repo/exp:1",
                "volumeMounts": [{"name": "a", "mountPath": "/a"}],
            }
        ],
        "ports": [{"name": "metrics", "containerPort": 9090}],
    }
    patch = {
        "containers": [
            {
                "name": "exporter",
                "image": "repo/exp:2",
                "volumeMounts": [
                    {"name": "b", "mountPath": "/a"},
                    {"name": "c", "mountPath": "/c"},
                ],
            },
            {"name": "shipper", "image": "repo/ship:1"},
        ],
        "ports": [{"containerPort": 9090, "name": "prom"}, {"containerPort": 7000}],
    }
    merged = merge_layers(base, [Layer(patch, {}, ())])
    assert merged["containers"] == [
        {
            "name": "exporter",
            "image": "repo/exp:2",
            "volumeMounts": [
                {"name": "b", "mountPath": "/a"},
                {"name": "c", "mountPath": "/c"},
            ],
        },
        {"name": "shipper", "image": "repo/ship:1"},
    ]
    assert merged["ports"] == [
        {"name": "prom", "containerPort": 9090},
        {"containerPort": 7000},
    ]


def test_a_role_merges_its_sidecars_by_name_over_the_jobs():
    data = {
        **JOB,
        "containers": [
            {"name": "exporter", "image": "repo/exp:1"},
            {"name": "shipper", "image": "repo/ship:1"},
        ],
        "roles": {
            "master": {"replicas": 1},
            "worker": {
                "replicas": 2,
                "containers": [{"name": "exporter", "image": "repo/exp:2"}],
            },
        },
    }
    pods = _pods(data)
    assert [c.get("image") for c in pods["Worker"]["containers"][1:]] == [
        "repo/exp:2",
        "repo/ship:1",
    ]
    assert [c.get("image") for c in pods["Master"]["containers"][1:]] == [
        "repo/exp:1",
        "repo/ship:1",
    ]
