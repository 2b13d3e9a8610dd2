"""kgen import drops no field silently (issue 18): what no spec field says is kept in the
imported spec's `patches:`, named at the input's line, and `kgen build` gives it back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.conftest import REPO, RunKgen, write_tree
from tests.test_import import _normalised

HINT = "    hint: kgen build renders it through `patches:` (docs/patches.md); move it to a spec field if one comes\n"
MASTER = "spec.pytorchReplicaSpecs.Master.template.spec"
WORKER = "spec.pytorchReplicaSpecs.Worker.template.spec"

# Two fields the spec has no place for: a pod's enableServiceLinks and a container's
# stdin (k8s.io/api core/v1 types.go PodSpec.EnableServiceLinks, Container.Stdin,
# tag v0.31.0); the Worker keeps the default enableServiceLinks: true, the sidecar
# has a terminationMessagePolicy.
JOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: mnist
  namespace: ml
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          enableServiceLinks: false
          containers:
            - name: pytorch
              image: registry.example.com/mnist:1
              stdin: true
            - name: log-shipper
              image: fluent/fluent-bit:3.0
              terminationMessagePolicy: FallbackToLogsOnError
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          enableServiceLinks: true
          containers:
            - name: pytorch
              image: registry.example.com/mnist:1
            - name: log-shipper
              image: fluent/fluent-bit:3.0
"""


def _import(tmp_path: Path, run_kgen: RunKgen, files: dict[str, str], *names: str):
    write_tree(tmp_path / "in", files)
    return run_kgen("import", *names, "--out", str(tmp_path / "p"), cwd=tmp_path / "in")


def _rebuilt(tmp_path: Path, run_kgen: RunKgen) -> dict[str, dict[str, Any]]:
    built = run_kgen("build", "-C", str(tmp_path / "p"))
    assert built.code == 0, built
    return {
        f"{path.parent.name}/{path.name}": yaml.safe_load(
            path.read_text().split("---\n", 1)[1]
        )
        for path in sorted((tmp_path / "p" / "manifests").rglob("*job.yaml"))
    }


def test_a_pod_field_per_role_and_container_fields_come_back(
    tmp_path: Path, run_kgen: RunKgen
):
    result = _import(tmp_path, run_kgen, {"job.yaml": JOB}, "job.yaml")
    out = str(tmp_path / "p")
    assert (result.code, result.err) == (
        0,
        f"job.yaml:14:11: warning: PyTorchJob mnist: {MASTER}.enableServiceLinks has no job spec field; kept as a patch (import-as-patch)\n"
        + HINT
        + f"job.yaml:18:15: warning: PyTorchJob mnist: {MASTER}.containers[pytorch].stdin has no job spec field; kept as a patch (import-as-patch)\n"
        + HINT
        + f"job.yaml:27:11: warning: PyTorchJob mnist: {WORKER}.enableServiceLinks has no job spec field; kept as a patch (import-as-patch)\n"
        + HINT
        + "kgen: 3 warnings in 1 file\n"
        f"kgen: imported 1 job into {out}/ (3 files); 3 fields kept as patches; run `kgen build -C {out}`\n",
    )
    spec = yaml.safe_load((tmp_path / "p" / "jobs" / "mnist.yaml").read_text())
    assert spec["patches"] == [
        {
            "merge": {
                "spec": {
                    "pytorchReplicaSpecs": {
                        "Master": {
                            "template": {
                                "spec": {
                                    "enableServiceLinks": False,
                                    "containers": [{"name": "pytorch", "stdin": True}],
                                }
                            }
                        },
                        "Worker": {"template": {"spec": {"enableServiceLinks": True}}},
                    }
                }
            }
        }
    ]
    # A sidecar is a whole core container in the spec: its fields need no patch.
    assert spec["roles"]["master"]["containers"] == [
        {
            "name": "log-shipper",
            "image": "fluent/fluent-bit:3.0",
            "terminationMessagePolicy": "FallbackToLogsOnError",
        }
    ]
    [rebuilt] = _rebuilt(tmp_path, run_kgen).values()
    original = yaml.safe_load(JOB)
    assert _normalised(rebuilt) == _normalised(original)


def test_the_status_and_server_set_metadata_are_named_not_kept(
    tmp_path: Path, run_kgen: RunKgen
):
    # As `kubectl get -o yaml` gives it: server-set metadata, defaults filled in
    # (kubernetes pkg/apis/core/v1/defaults.go SetDefaults_Container, tag v1.31.0),
    # and a status.
    live = JOB.replace(
        "  namespace: ml\n",
        "  namespace: ml\n  uid: 0d1c\n  resourceVersion: '42'\n",
    ).replace(
        "              image: registry.example.com/mnist:1\n            - name: log-shipper\n              image: fluent/fluent-bit:3.0\n",
        "              image: registry.example.com/mnist:1\n"
        "              terminationMessagePath: /dev/termination-log\n"
        "              terminationMessagePolicy: File\n"
        "            - name: log-shipper\n              image: fluent/fluent-bit:3.0\n",
    )
    assert live.count("terminationMessagePolicy: File") == 1
    live += "status:\n  conditions: [{type: Running, status: 'True'}]\n"
    result = _import(tmp_path, run_kgen, {"job.yaml": live}, "job.yaml")
    assert result.code == 0, result
    dropped = [line for line in result.err.splitlines() if "import-dropped" in line]
    assert dropped == [
        "job.yaml:6:3: warning: PyTorchJob mnist: metadata.uid is the cluster's, not the manifest's; not imported (import-dropped)",
        "job.yaml:7:3: warning: PyTorchJob mnist: metadata.resourceVersion is the cluster's, not the manifest's; not imported (import-dropped)",
        "job.yaml:37:1: warning: PyTorchJob mnist: status is the cluster's, not the manifest's; not imported (import-dropped)",
    ]
    assert "3 fields kept as patches" in result.err
    assert "status" not in (tmp_path / "p" / "jobs" / "mnist.yaml").read_text()


def test_inputs_that_keep_different_fields_keep_them_in_their_overlays(
    tmp_path: Path, run_kgen: RunKgen
):
    plain = JOB.replace("          enableServiceLinks: false\n", "").replace(
        "              stdin: true\n", ""
    )
    result = _import(
        tmp_path,
        run_kgen,
        {"prod/job.yaml": JOB, "dev/job.yaml": plain},
        "prod/job.yaml",
        "dev/job.yaml",
    )
    assert result.code == 0, result
    assert "4 fields kept as patches" in result.err, "prod's 3 and dev's Worker's 1"
    spec = yaml.safe_load((tmp_path / "p" / "jobs" / "mnist.yaml").read_text())
    assert "patches" not in spec
    prod = yaml.safe_load((tmp_path / "p" / "overlays" / "prod-mnist.yaml").read_text())
    dev = yaml.safe_load((tmp_path / "p" / "overlays" / "dev-mnist.yaml").read_text())
    assert [list(o) for o in (prod, dev)] == [["match", "patches"]] * 2
    rebuilt = _rebuilt(tmp_path, run_kgen)
    assert sorted(rebuilt) == [
        "dev/mnist.pytorchjob.yaml",
        "prod/mnist.pytorchjob.yaml",
    ]
    for env, text in (("prod", JOB), ("dev", plain)):
        original = yaml.safe_load(text)
        assert _normalised(rebuilt[f"{env}/mnist.pytorchjob.yaml"]) == _normalised(
            original
        ), env


# mpi-operator finds the container by position (v2beta1 mpi_job_controller.go
# newLauncher/newWorker use Containers[0], tag v0.5.0): kgen names it itself, and a
# merge cannot rename an item it finds by name, so the names come back by `ops:`.
MPI = """\
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: pi
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
            - name: "main/trainer~1"
              image: registry.example.com/mpi-pi:1
              tty: true
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: worker
              image: registry.example.com/mpi-pi:1
"""


def test_a_container_named_otherwise_is_renamed_by_an_escaped_pointer(
    tmp_path: Path, run_kgen: RunKgen
):
    result = _import(tmp_path, run_kgen, {"pi.yaml": MPI}, "pi.yaml")
    assert result.code == 0, result
    spec = yaml.safe_load((tmp_path / "p" / "jobs" / "pi.yaml").read_text())
    launcher = "/spec/mpiReplicaSpecs/Launcher/template/spec/containers/0/name"
    assert spec["patches"][0]["ops"][0] == {
        "op": "replace",
        "path": launcher,
        "value": "main/trainer~1",
    }
    assert spec["patches"][1]["merge"]["spec"]["mpiReplicaSpecs"]["Launcher"] == {
        "template": {"spec": {"containers": [{"name": "main/trainer~1", "tty": True}]}}
    }
    # The name is kept without a word (the operator takes the first container
    # whatever its name); the container's other field is named.
    assert ".containers[main/trainer~1].name has no" not in result.err
    assert (
        "pi.yaml:15:15: warning: MPIJob pi: spec.mpiReplicaSpecs.Launcher.template.spec.containers[main/trainer~1].tty has no job spec field; kept as a patch (import-as-patch)\n"
        in result.err
    )
    [rebuilt] = _rebuilt(tmp_path, run_kgen).values()
    [container] = rebuilt["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"][
        "containers"
    ]
    assert (container["name"], container["tty"]) == ("main/trainer~1", True)


# How 8 of 10 public MPIJobs name their containers. Neither operator looks the name up:
# mpi-operator v2beta1 and training-operator's MPIJob v1 take Containers[0]
# (mpi-operator v0.5.0 mpi_job_controller.go newLauncher/newWorker; training-operator
# v1.9.4 mpijob_controller.go names one only through spec.mainContainer).
MPI_NAMED = """\
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: tf-mnist
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
            - name: mpi-launcher
              image: registry.example.com/mnist:1
              command: [mpirun, python, /train.py]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: mpi-worker
              image: registry.example.com/mnist:1
"""


def test_an_mpijob_whose_containers_differ_only_by_name_imports_without_a_warning(
    tmp_path: Path, run_kgen: RunKgen
):
    result = _import(tmp_path, run_kgen, {"mnist.yaml": MPI_NAMED}, "mnist.yaml")
    out = tmp_path / "p"
    assert (result.code, result.err) == (
        0,
        f"kgen: imported 1 job into {out}/ (3 files); run `kgen build -C {out}`\n",
    )
    spec = yaml.safe_load((tmp_path / "p" / "jobs" / "tf-mnist.yaml").read_text())
    assert [op["value"] for op in spec["patches"][0]["ops"]] == [
        "mpi-launcher",
        "mpi-worker",
    ]
    [rebuilt] = _rebuilt(tmp_path, run_kgen).values()
    roles = rebuilt["spec"]["mpiReplicaSpecs"]
    assert [roles[r]["template"]["spec"]["containers"][0]["name"] for r in roles] == [
        "mpi-launcher",
        "mpi-worker",
    ]


def test_a_trainjob_keeps_another_managers_runtime_patch(
    tmp_path: Path, run_kgen: RunKgen
):
    # Kueue adds its own runtimePatches entry (trainer api/trainer/v1alpha1
    # trainjob_types.go RuntimePatch, listMapKey manager, tag v2.2.0); kgen writes
    # only its own, so the list is kept whole.
    text = (REPO / "manifests" / "trainer-gpu" / "mnist-ddp.trainjob.yaml").read_text()
    body = yaml.safe_load(text.split("---\n", 1)[1])
    kueue = {
        "manager": "kueue.x-k8s.io/manager",
        "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [{
            "name": "node",
            "template": {"spec": {"template": {"spec": {
                "schedulingGates": [{"name": "kueue.x-k8s.io/admission"}]
            }}}},
        }]}}},
    }  # fmt: skip
    body["spec"]["runtimePatches"].append(kueue)
    result = _import(
        tmp_path,
        run_kgen,
        {"tj.yaml": yaml.safe_dump(body, sort_keys=False)},
        "tj.yaml",
    )
    assert result.code == 0, result
    assert "TrainJob mnist-ddp: spec.runtimePatches has no job spec field" in result.err
    assert "1 field kept as a patch;" in result.err
    [rebuilt] = _rebuilt(tmp_path, run_kgen).values()
    assert rebuilt["spec"]["runtimePatches"] == body["spec"]["runtimePatches"]


def test_what_a_patch_cannot_give_back_stays_an_error(
    tmp_path: Path, run_kgen: RunKgen
):
    # The PyTorch operator wants a container named pytorch (training-operator
    # pkg/controller.v1/pytorch/pytorchjob_controller.go, tag v1.8.0); kgen renders it,
    # and no merge of the input's fields takes it away again.
    other = JOB.replace(
        "            - name: pytorch\n              image: registry.example.com/mnist:1\n            - name: log-shipper\n              image: fluent/fluent-bit:3.0\n",
        "            - name: other\n              image: registry.example.com/mnist:1\n",
    )
    result = _import(tmp_path, run_kgen, {"job.yaml": other}, "job.yaml")
    assert result.code == 1
    assert result.err.startswith(
        "job.yaml:28:11: error: cannot import Worker without a container named pytorch: its operator rejects the job (training-operator requires a container named pytorch in every replica type) (import-unsupported)\n"
        "    hint: name the role's main container pytorch, then import again\n"
        f"job.yaml:28:11: error: cannot keep what this PyTorchJob mnist has beyond the spec as a patch: the patched render still differs at {WORKER}.containers (import-unsupported)\n"
        "    hint: add it by hand after import, or leave it out\n"
    ), result.err


def test_the_repositorys_patched_job_comes_back_through_import(
    tmp_path: Path, run_kgen: RunKgen
):
    # jobs/xgboost-iris.yaml sets enableServiceLinks by `patches:`, and overlays/
    # hardened.yaml adds more in prod-gpu: import keeps each environment's as its own.
    files = {
        f"{env}/xgboost-iris.yaml": (
            REPO / "manifests" / env / "xgboost-iris.xgboostjob.yaml"
        ).read_text()
        for env in ("dev-cpu", "prod-gpu")
    }
    result = _import(tmp_path, run_kgen, files, *files)
    assert result.code == 0, result
    assert "6 fields kept as patches" in result.err
    rebuilt = _rebuilt(tmp_path, run_kgen)
    for env, text in files.items():
        original = yaml.safe_load(text.split("---\n", 1)[1])
        again = rebuilt[f"{env.split('/')[0]}/xgboost-iris.xgboostjob.yaml"]
        assert again["spec"] == original["spec"], env


CLAIMED = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: mnist}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: x:1
              volumeMounts: [{name: data, mountPath: /data}]
          volumes:
            - name: data
              persistentVolumeClaim: {claimName: data}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  labels: {team: vision}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 5Gi}}
  dataSource: {kind: VolumeSnapshot, name: snap, apiGroup: snapshot.storage.k8s.io}
"""


def test_a_created_claim_keeps_its_own_fields_by_a_targeted_patch(
    tmp_path: Path, run_kgen: RunKgen
):
    # A claim restored from a snapshot (k8s.io/api core/v1 types.go
    # PersistentVolumeClaimSpec.DataSource, tag v0.31.0) and a team label.
    result = _import(tmp_path, run_kgen, {"job.yaml": CLAIMED}, "job.yaml")
    assert result.code == 0, result
    assert [line for line in result.err.splitlines() if "import-as-patch" in line] == [
        "job.yaml:22:12: warning: PersistentVolumeClaim data: metadata.labels.team has no job spec field; kept as a patch (import-as-patch)",
        "job.yaml:26:3: warning: PersistentVolumeClaim data: spec.dataSource has no job spec field; kept as a patch (import-as-patch)",
    ]
    spec = yaml.safe_load((tmp_path / "p" / "jobs" / "mnist.yaml").read_text())
    assert spec["patches"] == [
        {
            "target": {"kind": "PersistentVolumeClaim", "name": "data"},
            "merge": {
                "metadata": {"labels": {"team": "vision"}},
                "spec": {
                    "dataSource": {
                        "kind": "VolumeSnapshot",
                        "name": "snap",
                        "apiGroup": "snapshot.storage.k8s.io",
                    }
                },
            },
        }
    ]
    assert run_kgen("build", "-C", str(tmp_path / "p")).code == 0
    [path] = (tmp_path / "p" / "manifests").rglob("data.persistentvolumeclaim.yaml")
    claim = yaml.safe_load(path.read_text().split("---\n", 1)[1])
    original = list(yaml.safe_load_all(CLAIMED))[1]
    assert claim["metadata"]["labels"]["team"] == "vision"
    assert claim["spec"]["dataSource"] == original["spec"]["dataSource"]


def test_a_claim_no_job_creates_goes_to_resources_whole(
    tmp_path: Path, run_kgen: RunKgen
):
    orphan = "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: scratch}\nspec:\n  resources: {requests: {storage: 1Gi}}\n"
    result = _import(tmp_path, run_kgen, {"job.yaml": CLAIMED + orphan}, "job.yaml")
    assert result.code == 0, result
    assert "imported 1 job and 1 object beside them (resources/)" in result.err
    kept = (
        tmp_path / "p" / "resources" / "scratch.persistentvolumeclaim.yaml"
    ).read_text()
    assert yaml.safe_load(kept) == yaml.safe_load(orphan.split("---\n", 1)[1])


def test_a_claim_two_jobs_create_is_reported_once(tmp_path: Path, run_kgen: RunKgen):
    job, claim = CLAIMED.split("---\n")
    second = job.replace("name: mnist}", "name: mnist2}")
    files = {"in.yaml": job + "---\n" + second + "---\n" + claim}
    result = _import(tmp_path, run_kgen, files, "in.yaml")
    assert result.code == 0, result
    assert result.err.count("(import-as-patch)") == 2
    assert "4 fields kept as patches" in result.err, "2 in each job's patches"
    assert run_kgen("build", "-C", str(tmp_path / "p")).code == 0
