"""kgen import reads torchrun's process count where teams start it: `torchrun`, `python
-m torch.distributed.run` (or `.launch`), or inside a shell's `-c` string; where a
script hides it (`sh run.sh`) or a variable holds it, the import says so at the
container's command line rather than leaving the count to a default in silence.

torchrun's `--nproc_per_node` wins over PET_NPROC_PER_NODE, which the operator (from
nprocPerNode) and the torch runtime set: torch/distributed/run.py reads each option's
default from its PET_ variable (kubeflow-api.md §3.3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import RunKgen, write_tree

# kubeflow/training-operator examples/pytorch/elastic/imagenet/imagenet.yaml (commit
# 3592a1d6, as in v1.7.0 and v1.8.0): `python -m torch.distributed.run`, no count, on
# pods without GPUs.
IMAGENET = """\
apiVersion: "kubeflow.org/v1"
kind: PyTorchJob
metadata:
  name: elastic-example-imagenet
spec:
  elasticPolicy:
    rdzvBackend: c10d
    minReplicas: 1
    maxReplicas: 3
    maxRestarts: 100
    metrics:
      - type: Resource
        resource:
          name: cpu
          target:
            type: Utilization
            averageUtilization: 80
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: quay.io/johnugeorge/pytorch-elastic-example-imagenet:0.1
              imagePullPolicy: IfNotPresent
              resources:
                requests:
                  cpu: 4
              env:
              - name: LOGLEVEL
                value: DEBUG
              command:
                - python
                - -m
                - torch.distributed.run
                - /workspace/examples/imagenet.py
                - "--arch=resnet18"
                - "--epochs=1"
                - "--batch-size=32"
                - "--workers=0"
                - "/workspace/data/tiny-imagenet-200"
"""
# kubeflow/training-operator examples/pytorch/cpu-demo/demo.yaml (commit 426ec21e),
# its nprocPerNode left out and its command started as teams wrap it.
CPU_DEMO = """\
apiVersion: "kubeflow.org/v1"
kind: PyTorchJob
metadata:
  name: torchrun-cpu
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: pytorch-cpu:py3.8
              command: COMMAND
"""
AUTO_ON_CPU = (
    "which runs torchrun with auto: one process per CPU core on pods without GPUs;"
    " kgen renders 1 (import-default-differs)"
)


def _import(root: Path, run_kgen: RunKgen, source: str) -> tuple[list[str], Any]:
    """The import's warnings and hints (summary lines left out) and the job's spec."""
    write_tree(root, {"in/job.yaml": source})
    result = run_kgen("import", "in/job.yaml", "--out", "out", cwd=root)
    assert result.code == 0, result
    (spec,) = (root / "out" / "jobs").glob("*.yaml")
    said = [line for line in result.err.splitlines() if not line.startswith("kgen:")]
    return said, yaml.safe_load(spec.read_text())


def _built(root: Path, run_kgen: RunKgen) -> dict[str, Any]:
    built = run_kgen("build", "-C", str(root / "out"))
    assert built.code == 0, built
    (path,) = (root / "out" / "manifests").rglob("*.pytorchjob.yaml")
    body: dict[str, Any] = next(d for d in yaml.safe_load_all(path.read_text()) if d)
    return body


def test_the_upstream_python_m_form_is_torchrun(tmp_path: Path, run_kgen: RunKgen):
    said, spec = _import(tmp_path, run_kgen, IMAGENET)
    assert [line for line in said if "import-default-differs" in line] == [
        f"in/job.yaml:5:1: warning: the process count is left to the operator, {AUTO_ON_CPU}"
    ]
    assert "nprocPerNode" not in spec


@pytest.mark.parametrize(
    ("command", "count"),
    [
        (
            '[bash, -c, "pip install -r requirements.txt && torchrun'
            ' --nproc_per_node=2 demo.py"]',
            "2",
        ),
        ("[sh, -ec, 'exec torchrun --nproc-per-node 3 demo.py']", "3"),
        (
            "[python3, -m, torch.distributed.launch, --nproc_per_node, '4', demo.py]",
            "4",
        ),
    ],
)
def test_a_count_on_the_command_line_is_the_jobs(
    tmp_path: Path, run_kgen: RunKgen, command: str, count: str
):
    """It wins over the operator's auto: the spec says it, and no auto-on-CPU warning
    (the import said the operator's auto started one process per core)."""
    said, spec = _import(tmp_path, run_kgen, CPU_DEMO.replace("COMMAND", command))
    assert said == []
    assert spec["nprocPerNode"] == count
    assert _built(tmp_path, run_kgen)["spec"]["nprocPerNode"] == count


def test_a_script_the_shell_runs_is_said_at_the_command_line(
    tmp_path: Path, run_kgen: RunKgen
):
    """The import said nothing: torchrun was not on the command line."""
    said, spec = _import(
        tmp_path, run_kgen, CPU_DEMO.replace("COMMAND", "[sh, run.sh]")
    )
    assert said == [
        "in/job.yaml:15:15: warning: the command runs run.sh, which kgen cannot look"
        " into: if it starts torchrun without --nproc_per_node, the operator's auto"
        " starts one process per CPU core on pods without GPUs; kgen renders 1"
        " (import-default-differs)",
        "    hint: set nprocPerNode to the processes each pod should start (`auto`"
        " keeps the operator's)",
    ]
    assert "nprocPerNode" not in spec


def test_a_count_kgen_cannot_read_is_said_at_the_command_line(
    tmp_path: Path, run_kgen: RunKgen
):
    command = '[bash, -c, "torchrun --nproc_per_node=$NPROC demo.py"]'
    said, _ = _import(tmp_path, run_kgen, CPU_DEMO.replace("COMMAND", command))
    assert said == [
        "in/job.yaml:15:15: warning: torchrun's process count is $NPROC on the command"
        " line, which kgen cannot read; the spec says nprocPerNode 1"
        " (import-default-differs)",
        "    hint: set nprocPerNode to the count it holds, so kgen explain and the rules"
        " see the processes each pod starts",
    ]


# A TrainJob on Kubeflow's torch runtime, whose count is auto (v2.2 and later).
TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: wrapped, namespace: ml}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    numNodes: 2
    image: registry.example.com/t:1.0
    command: COMMAND
    resourcesPerNode:
      limits: {memory: 8Gi}
      requests: {cpu: "2", memory: 8Gi}
"""


def test_a_trainjobs_wrapped_torchrun_count_is_read(tmp_path: Path, run_kgen: RunKgen):
    command = '[bash, -c, "torchrun --nproc_per_node=2 train.py"]'
    said, spec = _import(tmp_path / "a", run_kgen, TRAINJOB.replace("COMMAND", command))
    assert said == []
    assert spec["trainJob"]["numProcPerNode"] == 2
    said, spec = _import(
        tmp_path / "b", run_kgen, TRAINJOB.replace("COMMAND", "[sh, /opt/run.sh]")
    )
    assert said[0] == (
        "in/job.yaml:9:5: warning: the command runs /opt/run.sh, which kgen cannot look"
        " into: if it starts torchrun without --nproc_per_node, the runtime"
        " torch-distributed's auto starts one process per CPU core on pods without"
        " GPUs; kgen renders 1 (import-default-differs)"
    )
