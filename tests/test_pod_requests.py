"""What kgen counts of a job's pods (`kgen list`, the GPU quota, `kgen diff`'s GPUs) is
each pod's effective request as Kubernetes charges it: regular containers and native
sidecars add up, ordinary init containers count at their peak, TensorBoard's pods too."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from kgen.render.requests import pod_requests
from tests.conftest import RunKgen

Project = Callable[..., Path]


def _box(name: str, **resources: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "image": "busybox", "resources": resources}


def _sidecar(name: str, **resources: dict[str, Any]) -> dict[str, Any]:
    return {**_box(name, **resources), "restartPolicy": "Always"}


@pytest.mark.parametrize(
    ("pod", "expected"),
    [
        # Regular containers add up; a limit without a request is the request.
        (
            {
                "containers": [
                    _box("a", requests={"cpu": "1", "memory": "2Gi"}),
                    _box("b", limits={"cpu": 3, "memory": "6Gi"}),
                ]
            },
            {"cpu": Decimal(4), "memory": Decimal(8 * 2**30)},
        ),
        # A request beside its limit is the request.
        (
            {"containers": [_box("a", requests={"cpu": "500m"}, limits={"cpu": "2"})]},
            {"cpu": Decimal("0.5")},
        ),
        # An ordinary init container runs alone: the larger of it and the containers.
        (
            {
                "initContainers": [_box("i", requests={"cpu": "4", "memory": "1Gi"})],
                "containers": [_box("a", requests={"cpu": "1", "memory": "2Gi"})],
            },
            {"cpu": Decimal(4), "memory": Decimal(2 * 2**30)},
        ),
        # The sidecar KEP's example: a sidecar runs for the pod's life and beside every
        # init container after it (k8s.io/component-helpers resource.PodRequests).
        (
            {
                "initContainers": [
                    _box("i1", requests={"cpu": "2"}),
                    _sidecar("s1", requests={"cpu": "1"}),
                    _box("i2", requests={"cpu": "2"}),
                    _sidecar("s2", requests={"cpu": "1"}),
                ],
                "containers": [_box("a", requests={"cpu": "1"})],
            },
            {"cpu": Decimal(3)},
        ),
        (
            {
                "initContainers": [
                    _sidecar("s1", requests={"cpu": "1"}),
                    _box("i1", requests={"cpu": "5"}),
                ],
                "containers": [_box("a", requests={"cpu": "1"})],
            },
            {"cpu": Decimal(6)},
        ),
        # A GPU is an extended resource set as a limit: its request.
        (
            {
                "containers": [
                    _box("a", limits={"nvidia.com/gpu": "1"}),
                    _box("b", limits={"nvidia.com/gpu": 1}),
                ]
            },
            {"nvidia.com/gpu": Decimal(2)},
        ),
        # Overhead (set by the RuntimeClass admission) comes on top.
        (
            {
                "containers": [_box("a", requests={"cpu": "1"})],
                "overhead": {"cpu": "250m"},
            },
            {"cpu": Decimal("1.25")},
        ),
    ],
)
def test_the_effective_request_of_a_pod(
    pod: dict[str, Any], expected: dict[str, Decimal]
) -> None:
    assert pod_requests(pod, ("cpu", "memory", "nvidia.com/gpu")) == expected


SIDECARS = """
    framework: pytorch
    image: docker.io/pytorch/pytorch:2.3.1
    resources:
      requests: {cpu: "1", memory: 2Gi}
      limits: {cpu: "1", memory: 2Gi}
      gpu: 1
    containers:
      - name: decoder
        image: registry.example.com/decoder:1.0
        resources: {limits: {cpu: "1", memory: 1Gi, nvidia.com/gpu: 1}}
    initContainers:
      - name: proxy
        image: registry.example.com/proxy:1.0
        restartPolicy: Always
        resources: {requests: {cpu: 500m, memory: 512Mi}}
      - name: warmup
        image: registry.example.com/warmup:1.0
        resources: {requests: {cpu: "4", memory: 1Gi}}
    roles:
      master: {replicas: 1}
      worker: {replicas: 4}
    lint:
      ignore:
        sidecar-blocks-completion: the decoder exits with the trainer
"""
# Native sidecars need a release whose CRD has them (training-operator 1.9: the pod
# template of Kubernetes 1.31; `v1`, the 1.7 line, has 1.27's).
QUOTA = {
    "kgen.yaml": "environments:\n  dev: {overlays: [to19], gpuQuota: 8}\n",
    "overlays/to19.yaml": "target: training-operator-1.9\n",
}


def test_list_counts_sidecars_and_init_containers(project: Project, run_kgen: RunKgen):
    # Each pod: trainer 1 + decoder 1 + proxy 0.5 CPU beside it, or warmup 4 with the
    # proxy 0.5 while it runs: 4.5 CPU; memory 2 + 1 + 0.5 Gi; GPUs 1 + 1. Five pods.
    root = project({**QUOTA, "jobs/t.yaml": SIDECARS})
    result = run_kgen("list", cwd=root)
    assert result.out == (
        "ENVIRONMENT  JOB      KIND        TARGET                 ROLES               PODS  GPUS  CPU   MEMORY\n"
        "dev          t        PyTorchJob  training-operator-1.9  master 1, worker 4  5     10    22.5  17.5Gi\n"
        "dev          (total)                                                         5     10    22.5  17.5Gi\n"
    )


def test_the_gpu_quota_counts_a_sidecars_gpus(project: Project, run_kgen: RunKgen):
    root = project({**QUOTA, "jobs/t.yaml": SIDECARS})
    result = run_kgen("validate", cwd=root)
    assert (result.code, result.err) == (
        1,
        "kgen.yaml:2:37: error: environment dev asks for 10 GPUs at most, more than"
        " its quota of 8 (gpu-quota)\n"
        "    hint: largest: t 10; see `kgen list --env dev`\n"
        "kgen: 1 error in 1 file\n",
    )


def test_list_counts_the_tensorboard_deployment(project: Project, run_kgen: RunKgen):
    job = """
        framework: pytorch
        image: docker.io/pytorch/pytorch:2.3.1
        resources: {requests: {cpu: "2", memory: 4Gi}}
        volumes:
          - {name: data, claim: logs, mountPath: /data}
        tensorboard:
          logDir: /data/logs
          requests: {cpu: 500m, memory: 1Gi}
        roles:
          master: {replicas: 1}
          worker: {replicas: 2}
    """
    root = project({"jobs/t.yaml": job})
    result = run_kgen("list", cwd=root)
    assert result.out == (
        "ENVIRONMENT  JOB      KIND        TARGET  ROLES                              PODS  GPUS  CPU  MEMORY\n"
        "dev          t        PyTorchJob  v1      master 1, worker 2, tensorboard 1  4     0     6.5  13Gi\n"
        "dev          (total)                                                         4     0     6.5  13Gi\n"
    )


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def test_diff_counts_a_sidecars_gpus(project: Project, run_kgen: RunKgen):
    root = project({**QUOTA, "jobs/t.yaml": SIDECARS})
    kgen_yaml = root / "kgen.yaml"
    kgen_yaml.write_text(kgen_yaml.read_text().replace(", gpuQuota: 8", ""))
    assert run_kgen("build", cwd=root).code == 0
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    job = root / "jobs/t.yaml"
    job.write_text(job.read_text().replace("replicas: 4", "replicas: 5"))
    result = run_kgen("diff", "--base", "main", "--format", "markdown", cwd=root)
    assert result.code == 0, result
    assert "| `dev` | 0 | 0 | 1 | 10 → 12 (+2) |\n" in result.out
