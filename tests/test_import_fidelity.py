"""kgen import gives back what teams write: fields their manifests leave out stay out."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from tests.conftest import RunKgen
from tests.test_import_left import _import, _rebuilt

# /dev/shm as Kubeflow's examples mount it: a memory emptyDir with no sizeLimit, which
# the pod's memory limit bounds (k8s.io/api core/v1 EmptyDirVolumeSource.SizeLimit).
SHM = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: shm
  namespace: ml
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: registry.example.com/train:1
              volumeMounts:
                - {name: dshm, mountPath: /dev/shm}
          volumes:
            - name: dshm
              emptyDir: {medium: Memory}
"""


def test_shared_memory_without_a_size_limit_gets_none(
    tmp_path: Path, run_kgen: RunKgen
):
    result = _import(tmp_path, run_kgen, {"shm.yaml": SHM}, "shm.yaml")
    assert result.code == 0, result
    [job] = _rebuilt(tmp_path, run_kgen).values()
    pod = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]
    assert pod["volumes"] == [{"name": "dshm", "emptyDir": {"medium": "Memory"}}]


def test_shared_memory_with_a_size_limit_is_the_specs_shared_memory(
    tmp_path: Path, run_kgen: RunKgen
):
    sized = SHM.replace("{medium: Memory}", "{medium: Memory, sizeLimit: 8Gi}")
    assert _import(tmp_path, run_kgen, {"shm.yaml": sized}, "shm.yaml").code == 0
    spec = yaml.safe_load((tmp_path / "p" / "jobs" / "shm.yaml").read_text())
    assert spec["sharedMemory"] == "8Gi"
    assert "volumes" not in spec


def test_a_volume_without_a_source_is_the_empty_dir_the_pod_gets(
    tmp_path: Path, run_kgen: RunKgen
):
    """`emptyDir: null`, or no source at all: the job's CRD (no field nullable) prunes
    the null, and the pod the operator creates gets an empty dir on disk, as the API
    server defaults a volume without a source (k8s.io/kubernetes pkg/apis/core/v1
    defaults.go SetDefaults_Volume, tag v1.31.0; kubernetes/kubernetes#46950). Import
    refused the null (must be a mapping, not null) and kept the bare volume as a patch."""
    for source in ("emptyDir: null", "emptyDir:", ""):
        given = SHM.replace("emptyDir: {medium: Memory}", source)
        result = _import(tmp_path, run_kgen, {"shm.yaml": given}, "shm.yaml")
        assert (result.code, result.err) == (
            0,
            f"kgen: imported 1 job into {tmp_path}/p/ (3 files); run `kgen build -C"
            f" {tmp_path}/p`\n",
        ), source
        spec = yaml.safe_load((tmp_path / "p" / "jobs" / "shm.yaml").read_text())
        assert spec["volumes"] == [
            {"name": "dshm", "mountPath": "/dev/shm", "emptyDir": {}}
        ]
        [job] = _rebuilt(tmp_path, run_kgen).values()
        pod = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]
        assert pod["volumes"] == [{"name": "dshm", "emptyDir": {}}]
        shutil.rmtree(tmp_path / "p")


# mpi-operator's MPICH and Intel examples leave `command:` empty above the worker's
# args, and its NCCL test the worker's `annotations:`: YAML null, which the API server
# decodes as the field left out.
NULL_COMMAND = """\
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: pi
  namespace: ml
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
            - name: mpi
              image: registry.example.com/pi:1
              args: [mpirun, -n, "2", /home/mpiuser/pi]
    Worker:
      replicas: 2
      template:
        metadata:
          annotations:
        spec:
          containers:
            - name: mpi
              image: registry.example.com/pi:1
              command:
              args: [/usr/sbin/sshd, -De]
"""


def test_a_null_field_imports_as_left_out(tmp_path: Path, run_kgen: RunKgen):
    result = _import(tmp_path, run_kgen, {"pi.yaml": NULL_COMMAND}, "pi.yaml")
    assert result.code == 0, result
    assert "import-as-patch" not in result.err
    [job] = _rebuilt(tmp_path, run_kgen).values()
    [worker] = job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"][
        "containers"
    ]
    assert "command" not in worker
    assert worker["args"] == ["/usr/sbin/sshd", "-De"]


def test_shared_memory_named_otherwise_keeps_its_name(
    tmp_path: Path, run_kgen: RunKgen
):
    # sharedMemory renders a volume named dshm; RDMA guides name theirs shm.
    shm = SHM.replace("{medium: Memory}", "{medium: Memory, sizeLimit: 32Gi}")
    shm = shm.replace("name: dshm", "name: shm")
    result = _import(tmp_path, run_kgen, {"shm.yaml": shm}, "shm.yaml")
    assert result.code == 0, result
    [job] = _rebuilt(tmp_path, run_kgen).values()
    pod = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]
    assert pod["volumes"] == [
        {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "32Gi"}}
    ]
    assert pod["containers"][0]["volumeMounts"] == [
        {"name": "shm", "mountPath": "/dev/shm"}
    ]


def test_a_gpu_request_equal_to_its_limit_imports_as_the_gpu_count(
    tmp_path: Path, run_kgen: RunKgen
):
    # Kubernetes takes an extended resource's request from its limit, so manifests
    # often write both; the spec counts GPUs into limits alone.
    gpus = SHM.replace(
        "              volumeMounts:",
        "              resources:\n"
        "                requests: {nvidia.com/gpu: 2}\n"
        "                limits: {nvidia.com/gpu: 2}\n"
        "              volumeMounts:",
    )
    result = _import(tmp_path, run_kgen, {"gpu.yaml": gpus}, "gpu.yaml")
    assert result.code == 0, result
    assert "import-as-patch" not in result.err
    spec = yaml.safe_load((tmp_path / "p" / "jobs" / "shm.yaml").read_text())
    assert spec["resources"] == {"gpu": 2}
    [job] = _rebuilt(tmp_path, run_kgen).values()
    [main] = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"][
        "containers"
    ]
    assert main["resources"] == {"limits": {"nvidia.com/gpu": "2"}}


# Nulls inside the fields import copies: the API server prunes a null the CRD's schema
# does not allow, so each is a value left out. Import read them as Python's None, and
# wrote the text "None" as the variable's value and as a quantity (a spec that did not
# validate), and null labels and annotations the spec refuses.
NULL_VALUES = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: nulls
  namespace: ml
  labels: {team: a, owner: null}
  annotations: {note: null}
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        metadata:
          labels: {app: x, gone: null}
          annotations: {gone: null}
        spec:
          nodeSelector: null
          containers:
            - name: pytorch
              image: registry.example.com/train:1
              workingDir: null
              env:
                - {name: MODE, value: null}
              resources:
                requests: {cpu: null, memory: 1Gi}
                limits: {memory: 1Gi, cpu: null}
"""


def test_nulls_inside_copied_fields_import_as_left_out(
    tmp_path: Path, run_kgen: RunKgen
):
    result = _import(tmp_path, run_kgen, {"nulls.yaml": NULL_VALUES}, "nulls.yaml")
    assert result.code == 0, result
    assert "import-unchecked" not in result.err
    assert "import-as-patch" not in result.err
    text = (tmp_path / "p" / "jobs" / "nulls.yaml").read_text()
    assert "None" not in text
    assert ": null\n" not in text
    spec = yaml.safe_load(text)
    assert spec["env"] == [{"name": "MODE", "value": ""}]
    assert spec["resources"] == {
        "requests": {"memory": "1Gi"},
        "limits": {"memory": "1Gi"},
    }
    assert (spec["labels"], spec["podLabels"]) == ({"team": "a"}, {"app": "x"})
    assert "annotations" not in spec and "podAnnotations" not in spec
    [job] = _rebuilt(tmp_path, run_kgen).values()
    [main] = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"][
        "containers"
    ]
    assert main["env"] == [{"name": "MODE", "value": ""}]


def _run(name: str, image: str) -> str:
    return (
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n"
        f"  name: {name}\n  namespace: ml\n  labels: {{kgen.io/job: tf}}\n"
        "spec:\n  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n"
        "      template:\n        spec:\n          containers:\n"
        f"            - {{name: pytorch, image: '{image}'}}\n"
    )


def test_two_runs_of_a_job_for_one_environment_are_refused(
    tmp_path: Path, run_kgen: RunKgen
):
    # A namespace exported with two runs of a job: both import as job tf, and one
    # environment renders one job of a name. Import wrote an overlay listed twice (a
    # project that did not build), one run lost, and exited 0.
    runs = (
        _run("tf-r1", "r.example.com/x:1")
        + "---\n"
        + _run("tf-r2", "r.example.com/y:1")
    )
    result = _import(tmp_path, run_kgen, {"ml/runs.yaml": runs}, "ml/runs.yaml")
    assert result.code == 1, result
    assert result.err.splitlines()[:2] == [
        "ml/runs.yaml:19:9: error: cannot import this PyTorchJob: job tf is imported"
        " from ml/runs.yaml for environment ml already, and an environment has one job"
        " of a name (import-unsupported)",
        "    hint: import each run of a job from a folder of its own: each folder is an"
        " environment",
    ]
    assert not (tmp_path / "p").exists()
    apart = {"a/r1.yaml": _run("tf-r1", "r.example.com/x:1")}
    apart["b/r2.yaml"] = _run("tf-r2", "r.example.com/y:1")
    result = _import(tmp_path, run_kgen, apart, "a/r1.yaml", "b/r2.yaml")
    assert result.code == 0, result
    assert len(_rebuilt(tmp_path, run_kgen)) == 2
