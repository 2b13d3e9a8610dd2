"""kgen import of a TrainJob beside the runtime it names (in the same input files): what
the TrainJob inherits (the ML policy, numProcPerNode) is read from that runtime, not
from kgen's table of the runtimes Kubeflow installs.

Facts: kubeflow/trainer@v2.3.0 pkg/apis/trainer/v1alpha1/trainingruntime_types.go
(mlPolicy holds one of torch, mpi, ...; MPI's numProcPerNode defaults to 1; torch's
numProcPerNode existed up to v2.1 and is the TrainJob's `auto` since v2.2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.conftest import SHARED, RunKgen, write_tree

# kubeflow/trainer examples/yaml/basic/03-with-runtime.yaml (commit 15c124a7, after
# v2.1.0), its comments and the script's lines left out: a namespaced TrainingRuntime
# and the TrainJob that names it, in one file.
WITH_RUNTIME = """\
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: custom-runtime
  namespace: default
  labels:
    trainer.kubeflow.org/framework: torch
    team: data-science
spec:
  mlPolicy:
    numNodes: 1
    torch:
      numProcPerNode: auto
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
                custom-label: my-custom-runtime
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: python:3.11-slim
                      resources:
                        requests:
                          cpu: "500m"
                          memory: "512Mi"
                        limits:
                          cpu: "1000m"
                          memory: "1Gi"
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: custom-runtime-job
  namespace: default
  labels:
    app: custom-runtime-example
spec:
  runtimeRef:
    apiGroup: trainer.kubeflow.org
    kind: TrainingRuntime
    name: custom-runtime
  trainer:
    numNodes: 1
    image: python:3.11-slim
    command:
      - python3
      - -c
      - |
        import os
        print(os.environ.get("RANK"))
"""
UNCHECKED = (
    "in/job.yaml:3:7: warning: TrainingRuntime custom-runtime: kgen build checks a"
    " TrainingRuntime of trainer.kubeflow.org/v1alpha1 only against its CRD, which the"
    " imported project does not list; not imported (import-unchecked)"
)


def _import(root: Path, run_kgen: RunKgen, source: str) -> tuple[list[str], Any]:
    """The import's warnings (summary and hint lines left out) and the job's spec."""
    write_tree(root, {"in/job.yaml": source})
    result = run_kgen("import", "in/job.yaml", "--out", "out", cwd=root)
    assert result.code == 0, result
    (spec,) = (root / "out" / "jobs").glob("*.yaml")
    said = [line for line in result.err.splitlines() if line.startswith("in/")]
    return said, yaml.safe_load(spec.read_text())


def _built(root: Path, run_kgen: RunKgen) -> dict[str, Any]:
    built = run_kgen("build", "-C", str(root / "out"))
    assert built.code == 0, built
    (path,) = (root / "out" / "manifests").rglob("*.trainjob.yaml")
    body: dict[str, Any] = next(d for d in yaml.safe_load_all(path.read_text()) if d)
    return body


def test_the_upstream_runtime_beside_its_trainjob_is_read(
    tmp_path: Path, run_kgen: RunKgen
):
    """Its torch policy is no runtime kgen knows by name: the spec says it. Without it
    the import said the runtime's count was unknown to it."""
    said, spec = _import(tmp_path, run_kgen, WITH_RUNTIME)
    assert said == [UNCHECKED]
    assert spec["trainJob"] == {
        "runtimeRef": {"name": "custom-runtime", "kind": "TrainingRuntime"},
        "runtimePolicy": "torch",
    }
    given = yaml.safe_load_all(WITH_RUNTIME)
    job = next(d for d in given if d["kind"] == "TrainJob")
    body = _built(tmp_path, run_kgen)
    assert body["spec"]["runtimeRef"] == job["spec"]["runtimeRef"]
    assert {k: body["spec"]["trainer"][k] for k in job["spec"]["trainer"]} == job[
        "spec"
    ]["trainer"]


TEAM_MPI = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: team-deepspeed}
spec:
  mlPolicy: {numNodes: 1, mpi: {numProcPerNode: 2, mpiImplementation: OpenMPI}}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: ds, namespace: ml}
spec:
  runtimeRef: {name: team-deepspeed}
  trainer:
    numNodes: 2
    image: registry.example.com/ds:1.0
    command: [deepspeed, train.py]
    resourcesPerNode:
      limits: {memory: 8Gi, nvidia.com/gpu: "4"}
      requests: {cpu: "2", memory: 8Gi}
"""


def test_an_mpi_runtimes_slots_come_from_the_runtime_not_the_gpus(
    tmp_path: Path, run_kgen: RunKgen
):
    """kgen's default would be 4 (the GPUs), and the hostfile would have 4 slots where
    the runtime gives 2; the import warned it could not read the runtime."""
    said, spec = _import(tmp_path, run_kgen, TEAM_MPI)
    assert [line for line in said if "import-default-differs" in line] == []
    assert spec["trainJob"] == {
        "runtimeRef": {"name": "team-deepspeed"},
        "runtimePolicy": "mpi",
        "numProcPerNode": 2,
    }
    assert _built(tmp_path, run_kgen)["spec"]["trainer"]["numProcPerNode"] == 2


def test_a_torch_runtimes_auto_on_cpu_nodes_is_said_from_the_runtime(
    tmp_path: Path, run_kgen: RunKgen
):
    """The team's runtime, not Kubeflow's of the same name, says auto."""
    source = TEAM_MPI.replace(
        "mpi: {numProcPerNode: 2, mpiImplementation: OpenMPI}",
        "torch: {numProcPerNode: auto}",
    ).replace(', nvidia.com/gpu: "4"', "")
    source = source.replace("[deepspeed, train.py]", "[torchrun, train.py]")
    said, spec = _import(tmp_path, run_kgen, source)
    assert said[1:] == [
        "in/job.yaml:12:3: warning: the process count is left to the runtime"
        " team-deepspeed, which runs torchrun with auto: one process per CPU core on"
        " pods without GPUs; kgen renders 1 (import-default-differs)"
    ]
    assert spec["trainJob"]["runtimePolicy"] == "torch"


def test_a_runtime_of_another_namespace_is_not_the_one_named(
    tmp_path: Path, run_kgen: RunKgen
):
    """A TrainingRuntime is namespaced: the TrainJob's runtimeRef names the one in its
    own namespace."""
    source = WITH_RUNTIME.replace("namespace: default", "namespace: other", 1)
    said, spec = _import(tmp_path, run_kgen, source)
    assert said[-1] == (
        "in/job.yaml:50:3: warning: numProcPerNode is left to the runtime"
        " custom-runtime, whose default kgen cannot read; kgen renders 1"
        " (import-default-differs)"
    )
    assert "runtimePolicy" not in spec["trainJob"]


def test_a_runtime_imported_with_its_crd_is_shipped_from_resources(
    tmp_path: Path, run_kgen: RunKgen
):
    """With the CustomResourceDefinition among the inputs, the runtime goes to
    resources/ beside it, and kgen.yaml lists the CRD under crds:, so the build checks
    the runtime against it and ships both, as the input did. Without, the runtime was
    left out with a warning (import-unchecked), CRD or not."""
    crd = (SHARED / "crds" / "trainingruntime-trainer-v2.3.0.yaml").read_text()
    # v2.2 took numProcPerNode out of mlPolicy.torch (kubeflow-api.md §9): the
    # example's is refused by this CRD, below.
    current = WITH_RUNTIME.replace(
        "    torch:\n      numProcPerNode: auto\n", "    torch: {}\n"
    )
    write_tree(tmp_path, {"prod/crd.yaml": crd, "prod/job.yaml": current})
    args = ("import", "prod/crd.yaml", "prod/job.yaml", "--out", "out")
    result = run_kgen(*args, cwd=tmp_path)
    assert (result.code, result.err) == (
        0,
        "kgen: imported 1 job and 2 objects beside them (resources/) into out/"
        " (5 files); run `kgen build -C out`\n",
    )
    crd_file = (
        "resources/trainingruntimes.trainer.kubeflow.org.customresourcedefinition.yaml"
    )
    project = yaml.safe_load((tmp_path / "out" / "kgen.yaml").read_text())
    assert project["crds"] == [crd_file]
    runtime = next(
        d for d in yaml.safe_load_all(current) if d["kind"] == "TrainingRuntime"
    )
    built = run_kgen("build", "-C", "out", cwd=tmp_path)
    assert built.code == 0, built
    shipped = (
        tmp_path / "out" / "manifests" / "prod" / "custom-runtime.trainingruntime.yaml"
    )
    assert next(d for d in yaml.safe_load_all(shipped.read_text()) if d) == runtime
    # The upstream example as written: the build says what the CRD refuses, at its line.
    write_tree(tmp_path, {"prod/job.yaml": WITH_RUNTIME})
    assert run_kgen(*args[:-1], "again", cwd=tmp_path).code == 0
    built = run_kgen("build", "-C", "again", cwd=tmp_path)
    assert built.code == 1
    assert (
        "resources/custom-runtime.trainingruntime.yaml:13:7: error: invalid"
        " TrainingRuntime: Additional properties are not allowed ('numProcPerNode' was"
        " unexpected) (invalid-value)\n"
    ) in built.err


CLUSTER_RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: team-torch
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: pytorch/pytorch:2.3.1
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: ml}
spec:
  runtimeRef: {name: team-torch}
  trainer:
    numNodes: 1
    command: [torchrun, train.py]
"""


def test_a_cluster_runtime_comes_back_without_a_namespace(
    tmp_path: Path, run_kgen: RunKgen
):
    """Its CRD says `scope: Cluster`: the build gave every object of a CRD's kind the
    environment's namespace, and the imported project shipped the runtime with one."""
    crd = (SHARED / "crds" / "clustertrainingruntime-trainer-v2.3.0.yaml").read_text()
    write_tree(tmp_path, {"prod/crd.yaml": crd, "prod/job.yaml": CLUSTER_RUNTIME})
    args = ("import", "prod/crd.yaml", "prod/job.yaml", "--out", "out")
    assert run_kgen(*args, cwd=tmp_path).code == 0
    assert run_kgen("build", "-C", "out", cwd=tmp_path).code == 0
    shipped = tmp_path / "out/manifests/prod/team-torch.clustertrainingruntime.yaml"
    runtime = next(yaml.safe_load_all(CLUSTER_RUNTIME))
    assert next(d for d in yaml.safe_load_all(shipped.read_text()) if d) == runtime
