"""What a job leaves to its operator or runtime: a TrainJob's image, and torchrun's
process count, kept through `kgen import` and `kgen build`, or said where the spec
cannot keep it.

Facts: kubeflow/trainer@v2.3.0 examples/yaml/basic/01-hello-world.yaml (a TrainJob with
only runtimeRef, numNodes and command: the runtime's `node` container gives the image);
pkg/apis/trainer/v1alpha1/trainjob_types.go (trainer.image is optional; numProcPerNode
defaults to `auto` for the torch runtime, v2.2 and later); manifests/base/runtimes/ (the
torch runtime's `numProcPerNode: auto` at v2.1.0, the MPI runtimes' 1); training-operator
1.7+ defaults a PyTorchJob's nprocPerNode to `auto` (kubeflow-api.md §3.1), which
torchrun turns into one process per CPU core without GPUs (§3.3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kgen.kinds import kind_for
from kgen.kinds.targets import TARGETS
from kgen.kinds.trainer.importer import RUNTIME_NPROC
from kgen.render.base import Environment
from kgen.render.job import render_job
from tests.conftest import SHARED, RunKgen, write_tree

HELLO = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: hello-world, namespace: ml}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    numNodes: 2
    command: [torchrun, /workspace/train.py]
    resourcesPerNode:
      limits: {memory: 8Gi, nvidia.com/gpu: "1"}
      requests: {cpu: "2", memory: 8Gi}
"""
BASE = {
    "name": "hello",
    "framework": "pytorch",
    "command": ["torchrun", "train.py"],
    "resources": {"requests": {"cpu": "2"}, "limits": {"memory": "8Gi"}},
    "roles": {"master": {"replicas": 1}},
}


def _trainer(target: str, **extra: Any) -> tuple[dict[str, Any], list[str]]:
    spec = kind_for("pytorch", TARGETS[target]).model().model_validate(BASE | extra)
    manifests, problems = render_job(spec, Environment("e", TARGETS[target], "ns"))
    return manifests[0].body["spec"]["trainer"], [p.message for p in problems]


def test_a_trainjob_without_an_image_runs_the_runtimes():
    for target in ("trainer-v2.1", "trainer-v2.3"):
        trainer, problems = _trainer(target)
        assert "image" not in trainer
        assert trainer["command"] == ["torchrun", "train.py"]
        assert problems == []
    trainer, _ = _trainer("trainer-v2.3", image="registry.example.com/t:1.0")
    assert trainer["image"] == "registry.example.com/t:1.0"


def test_every_other_kind_still_requires_the_image(tmp_path: Path, run_kgen: RunKgen):
    job = yaml.safe_dump(BASE)
    project = "environments: {to: [v1], tj: [trainer]}\n"
    write_tree(
        tmp_path,
        {
            "kgen.yaml": project,
            "overlays/v1.yaml": "target: v1\n",
            "overlays/trainer.yaml": "target: trainer-v2.3\n",
            "jobs/hello.yaml": job,
        },
    )
    result = run_kgen("validate", cwd=tmp_path)
    assert result.code == 1
    errors = [line for line in result.err.splitlines() if ": error: " in line]
    assert errors == [
        "jobs/hello.yaml:1:1: error: missing required key 'image' (missing-key)"
    ]


def _import(tmp_path: Path, run_kgen: RunKgen, source: str) -> list[str]:
    """The import's warnings, its summary lines left out."""
    write_tree(tmp_path, {"in/hello.yaml": source})
    result = run_kgen("import", "in/hello.yaml", "--out", "out", cwd=tmp_path)
    assert result.code == 0, result
    return [line for line in result.err.splitlines() if not line.startswith("kgen:")]


def _import_and_build(tmp_path: Path, run_kgen: RunKgen, source: str) -> Any:
    assert _import(tmp_path, run_kgen, source) == []
    built = run_kgen("build", "-C", str(tmp_path / "out"))
    assert built.code == 0, built
    # The rules that read the image (image-latest, ...) ran and found nothing.
    assert built.err.count("warning") == 0, built.err
    (path,) = (tmp_path / "out/manifests").rglob("hello-world.*.yaml")
    return next(d for d in yaml.safe_load_all(path.read_text()) if d)


def test_a_trainjob_without_an_image_imports_and_builds_back(
    tmp_path: Path, run_kgen: RunKgen
):
    body = _import_and_build(tmp_path, run_kgen, HELLO)
    spec = yaml.safe_load((tmp_path / "out/jobs/hello-world.yaml").read_text())
    assert "image" not in spec
    original = yaml.safe_load(HELLO)["spec"]["trainer"]
    trainer = body["spec"]["trainer"]
    assert "image" not in trainer
    assert {k: trainer[k] for k in original} == original


# --- torchrun's process count
def test_the_runtimes_counts_are_the_upstream_runtimes():
    runtimes = SHARED / "crds" / "trainer-runtimes-v2.3.0"
    found = {}
    for name, release in (
        ("torch_distributed", "-v2.1.0"),
        ("deepspeed_distributed", ""),
        ("mlx_distributed", ""),
    ):
        doc = yaml.safe_load((runtimes / f"{name}{release}.yaml").read_text())
        (policy,) = [v for k, v in doc["spec"]["mlPolicy"].items() if k != "numNodes"]
        found[doc["metadata"]["name"]] = str(policy["numProcPerNode"])
    assert found == RUNTIME_NPROC
    # From v2.2 the torch runtime says nothing: the API's default is auto.
    latest = yaml.safe_load((runtimes / "torch_distributed.yaml").read_text())
    assert latest["spec"]["mlPolicy"]["torch"] == {}


def test_on_gpu_nodes_the_torch_runtimes_auto_is_kgens_default(
    tmp_path: Path, run_kgen: RunKgen
):
    body = _import_and_build(tmp_path, run_kgen, HELLO)
    assert body["spec"]["trainer"]["numProcPerNode"] == 1  # auto on one GPU


def test_an_mpi_runtimes_one_slot_is_written_out(tmp_path: Path, run_kgen: RunKgen):
    source = (
        HELLO.replace("torch-distributed", "deepspeed-distributed")
        .replace('nvidia.com/gpu: "1"', 'nvidia.com/gpu: "4"')
        .replace(
            "command: [torchrun, /workspace/train.py]", "command: [deepspeed, t.py]"
        )
    )
    body = _import_and_build(tmp_path, run_kgen, source)
    spec = yaml.safe_load((tmp_path / "out/jobs/hello-world.yaml").read_text())
    assert spec["trainJob"]["numProcPerNode"] == 1
    # kgen's default would be 4, the GPUs: the hostfile keeps the runtime's 1 slot.
    assert body["spec"]["trainer"]["numProcPerNode"] == 1


CPU_TRAINJOB = HELLO.replace(', nvidia.com/gpu: "1"', "")
CPU_PYTORCHJOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: hello-world}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example.com/t:1.0
            command: [torchrun, train.py]
"""


def test_auto_on_cpu_nodes_is_said_at_the_jobs_line(tmp_path: Path, run_kgen: RunKgen):
    said = (
        " which runs torchrun with auto: one process per CPU core on pods without"
        " GPUs; kgen renders 1 (import-default-differs)"
    )
    hint = " (auto started one per CPU core of its node)"
    assert _import(tmp_path / "t", run_kgen, CPU_TRAINJOB) == [
        "in/hello.yaml:6:3: warning: the process count is left to the runtime"
        f" torch-distributed,{said}",
        f"    hint: set trainJob.numProcPerNode to the processes each pod should start{hint}",
    ]
    assert _import(tmp_path / "p", run_kgen, CPU_PYTORCHJOB) == [
        f"in/hello.yaml:4:1: warning: the process count is left to the operator,{said}",
        f"    hint: set nprocPerNode to the processes each pod should start{hint}",
    ]
    # Without torchrun nothing reads the count: auto and 1 run the same.
    plain = CPU_PYTORCHJOB.replace("[torchrun, train.py]", "[python, train.py]")
    assert _import(tmp_path / "q", run_kgen, plain) == []


def test_a_runtime_kgen_does_not_know_is_said(tmp_path: Path, run_kgen: RunKgen):
    source = HELLO.replace("{name: torch-distributed}", "{name: team-torch}")
    assert _import(tmp_path, run_kgen, source) == [
        "in/hello.yaml:6:3: warning: numProcPerNode is left to the runtime team-torch,"
        " whose default kgen cannot read; kgen renders 1 (import-default-differs)",
        "    hint: set trainJob.numProcPerNode to the runtime's mlPolicy numProcPerNode",
    ]
