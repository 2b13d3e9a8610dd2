"""kgen import of the TensorBoard kgen renders beside a job (a Deployment and Service,
or Kubeflow's Tensorboard): it becomes the job's `tensorboard:` section again, and the
imported project builds the same objects back. One that belongs to no imported job
stays beside the jobs, and the imported project still builds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import RunKgen, write_tree

PROJECT = {
    "kgen.yaml": """
        environments:
          prod: {overlays: [v1], namespace: ml-prod}
    """,
    "overlays/v1.yaml": "target: v1\n",
}
JOB = """
    framework: tensorflow
    image: registry.example.com/recsys/tf:2.15.0
    resources: {requests: {cpu: "1", memory: 2Gi}, limits: {cpu: "1", memory: 2Gi}}
    volumes:
      - name: ckpt
        claim: tf-ckpt
        subPath: run-7
        create: {size: 10Gi, accessModes: [ReadWriteMany]}
        mountPath: /ckpt
    roles:
      worker: {replicas: 2}
"""
KUBEFLOW = {"logDir": "/ckpt/logs", "kind": "kubeflow"}
DEPLOYMENT = {
    "logDir": "/ckpt/logs/tf",
    "image": "registry.example.com/tensorboard:2.16",
    "serviceType": "NodePort",
    "requests": {"cpu": "250m", "memory": "1Gi"},
    "limits": {"memory": "2Gi"},
}


def _built(root: Path, run_kgen: RunKgen, board: dict[str, Any]) -> Path:
    spec = yaml.safe_load(JOB) | {"tensorboard": board}
    write_tree(root, {**PROJECT, "jobs/tf.yaml": yaml.safe_dump(spec)})
    assert run_kgen("build", cwd=root).code == 0
    return root


def _import(root: Path, run_kgen: RunKgen) -> tuple[str, Path]:
    inputs = sorted(str(p.relative_to(root)) for p in root.glob("manifests/*/*.*.yaml"))
    result = run_kgen("import", *inputs, "--out", "imported", cwd=root)
    assert result.code == 0, result
    built = run_kgen("build", "-C", str(root / "imported"))
    assert built.code == 0, built
    return result.err, root / "imported"


def _bodies(root: Path) -> dict[str, str]:
    return {
        p.name: p.read_text().split("\n---\n", 1)[1]
        for p in sorted(root.glob("manifests/prod/*.*.yaml"))
    }


@pytest.mark.parametrize(
    "board", [KUBEFLOW, DEPLOYMENT], ids=["kubeflow", "deployment"]
)
def test_a_jobs_tensorboard_comes_back_as_its_section(
    tmp_path: Path, run_kgen: RunKgen, board: dict[str, Any]
) -> None:
    root = _built(tmp_path, run_kgen, board)
    err, out = _import(root, run_kgen)
    assert "beside them" not in err
    assert not (out / "resources").exists()
    spec = yaml.safe_load((out / "jobs" / "tf.yaml").read_text())
    assert spec["tensorboard"] == board
    assert "patches" not in spec
    assert _bodies(out) == _bodies(root)


def test_a_run_comes_back_as_its_job_and_run_id_with_its_tensorboard(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    # A job with a runId renders as <name>-<runId>, labelled kgen.io/job: <name>; its
    # TensorBoard and claims go by the name. Import read the run's name as the job's,
    # so the TensorBoard stayed beside the jobs and the claim was renamed.
    spec = yaml.safe_load(JOB) | {"tensorboard": KUBEFLOW, "runId": "r7"}
    write_tree(tmp_path, {**PROJECT, "jobs/tf.yaml": yaml.safe_dump(spec)})
    assert run_kgen("build", cwd=tmp_path).code == 0
    assert (tmp_path / "manifests/prod/tf-r7.tfjob.yaml").exists()
    err, out = _import(tmp_path, run_kgen)
    assert "beside them" not in err
    back = yaml.safe_load((out / "jobs" / "tf.yaml").read_text())
    assert (back["name"], back["runId"], back["tensorboard"]) == ("tf", "r7", KUBEFLOW)
    assert "patches" not in back
    assert _bodies(out) == _bodies(tmp_path)


def test_what_the_section_cannot_say_is_kept_as_a_patch(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    root = _built(tmp_path, run_kgen, DEPLOYMENT)
    path = root / "manifests" / "prod" / "tf-tensorboard.deployment.yaml"
    text = path.read_text().replace(
        "  replicas: 1\n", "  replicas: 1\n  revisionHistoryLimit: 2\n"
    )
    path.write_text(text)
    err, out = _import(root, run_kgen)
    line = text.split("\n").index("  revisionHistoryLimit: 2") + 1
    assert (
        f"manifests/prod/tf-tensorboard.deployment.yaml:{line}:3: warning: Deployment"
        " tf-tensorboard: spec.revisionHistoryLimit has no job spec field; kept as a"
        " patch (import-as-patch)"
    ) in err
    spec = yaml.safe_load((out / "jobs" / "tf.yaml").read_text())
    assert spec["tensorboard"] == DEPLOYMENT
    assert spec["patches"] == [
        {
            "target": {"kind": "Deployment", "name": "tf-tensorboard"},
            "merge": {"spec": {"revisionHistoryLimit": 2}},
        }
    ]
    # A patch's field comes after the render's: the same object, not the same text.
    objects = {name: yaml.safe_load(body) for name, body in _bodies(out).items()}
    assert objects == {
        name: yaml.safe_load(body) for name, body in _bodies(root).items()
    }


def test_a_tensorboard_of_no_imported_job_is_named_not_written(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    """Without its job, Kubeflow's Tensorboard would be a resources/ file the build
    refuses (resource-unknown-kind): import says so instead."""
    root = _built(tmp_path, run_kgen, KUBEFLOW)
    board = root / "manifests" / "prod" / "tf-tensorboard.tensorboard.yaml"
    text = board.read_text().replace("tf-tensorboard", "eval-tensorboard")
    board.write_text(text.replace("part-of: tf\n", "part-of: eval\n"))
    err, out = _import(root, run_kgen)
    assert (
        "manifests/prod/tf-tensorboard.tensorboard.yaml:5:7: warning: Tensorboard"
        " eval-tensorboard: kgen build checks a Tensorboard of"
        " tensorboard.kubeflow.org/v1alpha1"
        " only against its CRD, which the imported project does not list; not"
        " imported"
        " (import-unchecked)\n"
        "    hint: import it with the job whose tensorboard: renders it, or import it"
        " with its CustomResourceDefinition: both go to resources/, the CRD listed"
        " under kgen.yaml crds:\n"
    ) in err
    assert "beside them" not in err
    assert not (out / "resources").exists()


def test_a_deployment_without_its_service_stays_beside_the_jobs(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    """kgen renders the Service with the Deployment: a section would add one."""
    root = _built(tmp_path, run_kgen, DEPLOYMENT)
    (root / "manifests" / "prod" / "tf-tensorboard.service.yaml").unlink()
    err, out = _import(root, run_kgen)
    assert "1 object beside them (resources/)" in err
    assert "tensorboard" not in yaml.safe_load((out / "jobs" / "tf.yaml").read_text())
    assert (out / "resources" / "tf-tensorboard.deployment.yaml").exists()


def test_a_tensorboard_of_a_shape_the_api_lacks_is_an_error_at_its_field(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    # It was left beside the jobs as it was, where `kgen build` of the imported
    # project refused it; import reads it, so it says what is wrong, and where.
    root = _built(tmp_path, run_kgen, DEPLOYMENT)
    path = root / "manifests" / "prod" / "tf-tensorboard.deployment.yaml"
    text = path.read_text()
    path.write_text(
        text.replace("      containers:\n", "      containers: 7\n      x:\n")
    )
    line = path.read_text().splitlines().index("      containers: 7") + 1
    inputs = sorted(str(p.relative_to(root)) for p in root.glob("manifests/*/*.*.yaml"))
    result = run_kgen("import", *inputs, "--out", "imported", cwd=root)
    assert (result.code, result.err) == (
        1,
        f"manifests/prod/tf-tensorboard.deployment.yaml:{line}:19: error: cannot import"
        " this Deployment: spec.template.spec.containers must be a list of containers,"
        " not a number (import-unsupported)\n"
        "kgen: 1 error in 1 file\n"
        "kgen: nothing written to imported/: an import with errors writes no project\n",
    )
    assert not (root / "imported").exists()
