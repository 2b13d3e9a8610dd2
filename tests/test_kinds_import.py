"""kgen import of the newer kinds: build(import(manifests)) gives the same objects back,
and an MPIJob written by hand (containers named as the user likes) imports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.conftest import RunKgen, write_tree
from tests.unpatched import unpatched_repo

KINDS = ("MPIJob", "XGBoostJob", "JAXJob")


def _objects(root: Path) -> dict[str, dict[str, Any]]:
    found = {}
    for path in sorted(root.rglob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc and doc.get("kind") in KINDS:
                key = f"{path.parent.name}/{doc['kind']}/{doc['metadata']['name']}"
                found[key] = doc
    return found


def test_round_trip_of_the_new_kinds_in_the_repo(tmp_path: Path, run_kgen: RunKgen):
    repo = unpatched_repo(tmp_path / "repo", run_kgen)
    inputs = [
        str(p.relative_to(repo))
        for kind in ("mpijob", "xgboostjob", "jaxjob")
        for p in sorted(repo.glob(f"manifests/*/*.{kind}.yaml"))
    ]
    out = tmp_path / "imported"
    result = run_kgen("import", *inputs, "--out", str(out), cwd=repo)
    assert result.code == 0, result
    assert run_kgen("build", "-C", str(out)).code == 0
    objects = _objects(out / "manifests")
    assert len(objects) == 6, (
        "MPIJob v1 twice and v2beta1 once, XGBoost twice, JAX once"
    )
    assert objects == _objects(repo / "manifests")


MPI_PI = """
    apiVersion: kubeflow.org/v2beta1
    kind: MPIJob
    metadata:
      name: pi
    spec:
      slotsPerWorker: 1
      runPolicy:
        cleanPodPolicy: Running
      sshAuthMountPath: /home/mpiuser/.ssh
      mpiImplementation: OpenMPI
      mpiReplicaSpecs:
        Launcher:
          replicas: 1
          restartPolicy: Never
          template:
            spec:
              containers:
              - image: registry.example.com/mpi-pi:1
                name: launcher
                command: [mpirun, -n, "2", /home/mpiuser/pi]
        Worker:
          replicas: 2
          template:
            spec:
              containers:
              - image: registry.example.com/mpi-pi:1
                name: worker
"""


def test_an_mpijob_imports_by_its_first_container(tmp_path: Path, run_kgen: RunKgen):
    # Both MPI operators use the first container, whatever its name (newLauncher,
    # newWorker); the launcher's Never differs from mpi-operator's OnFailure default.
    write_tree(tmp_path, {"pi.yaml": MPI_PI})
    result = run_kgen("import", "pi.yaml", "--out", "p", cwd=tmp_path)
    assert result.code == 0, result
    spec = yaml.safe_load((tmp_path / "p" / "jobs" / "pi.yaml").read_text())
    assert spec == {
        "name": "pi",
        "framework": "mpi",
        "image": "registry.example.com/mpi-pi:1",
        "roles": {
            "launcher": {
                "replicas": 1,
                "restartPolicy": "Never",
                "command": ["mpirun", "-n", "2", "/home/mpiuser/pi"],
            },
            "worker": {"replicas": 2},
        },
        "runPolicy": {"cleanPodPolicy": "Running"},
        "slotsPerWorker": 1,
        "sshAuthMountPath": "/home/mpiuser/.ssh",
        # kgen names the container itself; the input's names come back by patches.
        "patches": [
            {
                "ops": [
                    {
                        "op": "replace",
                        "path": f"/spec/mpiReplicaSpecs/{role}/template/spec/containers/0/name",
                        "value": role.lower(),
                    }
                    for role in ("Launcher", "Worker")
                ]
            }
        ],
    }
    # Without a word: the operator takes the first container whatever its name.
    assert "kept as a patch" not in result.err
    built = run_kgen("build", "-C", str(tmp_path / "p"))
    assert built.code == 0, built
    [rebuilt] = (tmp_path / "p" / "manifests").rglob("pi.mpijob.yaml")
    job = yaml.safe_load(rebuilt.read_text().split("---\n", 1)[1])
    roles = job["spec"]["mpiReplicaSpecs"]
    assert [roles[r]["template"]["spec"]["containers"][0]["name"] for r in roles] == [
        "launcher",
        "worker",
    ]


MPI_V1 = """
    apiVersion: kubeflow.org/v1
    kind: MPIJob
    metadata:
      name: mnist
    spec:
      slotsPerWorker: 1
      cleanPodPolicy: Running
      mpiReplicaSpecs:
        Launcher:
          replicas: 1
          template:
            spec:
              containers:
              - {name: mpi, image: "registry.example.com/mnist:1", command: [mpirun, train]}
"""


def test_mpijob_v1_top_level_clean_pod_policy_is_not_a_legacy_layout(
    tmp_path: Path, run_kgen: RunKgen
):
    # MPIJob v1 keeps a deprecated cleanPodPolicy beside runPolicy; the operator uses it
    # when runPolicy has none (training-operator@v1.9.4 mpijob_controller.go Reconcile).
    # Read as the pre-runPolicy layout, the job would land on v1-legacy, which has no
    # MPIJob, and its import would not build.
    write_tree(tmp_path, {"mnist.yaml": MPI_V1})
    assert run_kgen("import", "mnist.yaml", "--out", "p", cwd=tmp_path).code == 0
    project = yaml.safe_load((tmp_path / "p" / "kgen.yaml").read_text())
    (environment,) = project["environments"].values()
    assert environment["overlays"] == ["v1"]
    spec = yaml.safe_load((tmp_path / "p" / "jobs" / "mnist.yaml").read_text())
    assert spec["runPolicy"] == {"cleanPodPolicy": "Running"}
    assert run_kgen("build", "-C", str(tmp_path / "p")).code == 0


# training-operator rejects it itself: its validation wants a container named xgboost
# in every replica type (training-operator v1.8.0 to v1.9.4
# pkg/webhooks/xgboost/xgboostjob_webhook.go validateXGBReplicaSpecs; before v1.8,
# pkg/apis/kubeflow.org/v1/xgboost_validation.go at reconcile).
XGBOOST_TRAINER = """\
apiVersion: kubeflow.org/v1
kind: XGBoostJob
metadata: {name: iris}
spec:
  xgbReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: trainer, image: "registry.example.com/iris:1"}]
"""


def test_an_xgboostjob_without_its_named_container_is_refused_as_its_operator_would(
    tmp_path: Path, run_kgen: RunKgen
):
    write_tree(tmp_path, {"iris.yaml": XGBOOST_TRAINER})
    result = run_kgen("import", "iris.yaml", "--out", "p", cwd=tmp_path)
    assert (result.code, result.err) == (
        1,
        "iris.yaml:10:11: error: cannot import Master without a container named"
        " xgboost: its operator rejects the job (training-operator requires a"
        " container named xgboost in every replica type) (import-unsupported)\n"
        "    hint: name the role's main container xgboost, then import again\n"
        "kgen: 1 error in 1 file\n"
        "kgen: nothing written to p/: an import with errors writes no project\n",
    )
