"""What a TrainJob leaves to its runtime: the trainer's image (and, below, torchrun's
process count), kept so through `kgen import` and `kgen build`.

Facts: kubeflow/trainer@v2.3.0 examples/yaml/basic/01-hello-world.yaml (a TrainJob with
only runtimeRef, numNodes and command: the runtime's `node` container gives the image);
pkg/apis/trainer/v1alpha1/trainjob_types.go (trainer.image is optional)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kgen.kinds import kind_for
from kgen.kinds.targets import TARGETS
from kgen.render.base import Environment
from kgen.render.job import render_job
from tests.conftest import RunKgen, write_tree

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


def _import_and_build(tmp_path: Path, run_kgen: RunKgen, source: str) -> Any:
    write_tree(tmp_path, {"in/hello.yaml": source})
    result = run_kgen("import", "in/hello.yaml", "--out", "out", cwd=tmp_path)
    assert result.code == 0, result
    built = run_kgen("build", "-C", str(tmp_path / "out"))
    assert built.code == 0, built
    # The rules that read the image (image-latest, ...) ran and found nothing.
    assert built.err.count("warning") == 0, built.err
    (path,) = (tmp_path / "out/manifests").rglob("hello-world.trainjob.yaml")
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
