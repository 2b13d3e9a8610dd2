"""A job Kueue admits carries no suspend: Kueue's webhook suspends it at creation and
its controller resumes it on admission, and a suspend in the manifest would be set back
by Flux's server-side apply on every reconcile (kgen.render.kueue, docs/gitops.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kgen.kinds.targets import target_of_manifest
from tests.conftest import RunKgen, write_tree

QUEUE = "labels: {kueue.x-k8s.io/queue-name: team-a}"
RESOURCES = (
    'resources: {requests: {cpu: "1", memory: 2Gi}, limits: {cpu: "1", memory: 2Gi}}'
)


def _project(root: Path) -> Path:
    return write_tree(
        root,
        {
            "kgen.yaml": """
                argocd: {repoURL: "https://git.example.com/ml.git"}
                flux: {sourceRef: {name: ml}}
                environments:
                  dev: {overlays: [v1], namespace: ml}
                  hpc: {overlays: [mpi], namespace: ml-hpc, jobs: {frameworks: [mpi]}}
                  trainer: {overlays: [trainer], namespace: ml, jobs: {frameworks: [pytorch]}}
                lint: {ignore: {resources-missing: minimal specs}}
            """,
            "overlays/v1.yaml": "target: v1\n",
            "overlays/mpi.yaml": "target: mpi-operator\n",
            "overlays/trainer.yaml": "target: trainer-v2.3\npatch: {nprocPerNode: null}\n",
            "jobs/xgb.yaml": f"""
                framework: xgboost
                {QUEUE}
                image: docker.io/kubeflow/xgboost-dist-iris:1.1
                {RESOURCES}
                roles: {{master: {{replicas: 1}}, worker: {{replicas: 2}}}}
            """,
            "jobs/tf-queued.yaml": f"""
                framework: tensorflow
                {QUEUE}
                image: x:1
                {RESOURCES}
                roles: {{worker: {{replicas: 2}}}}
            """,
            "jobs/tf-plain.yaml": f"""
                framework: tensorflow
                image: x:1
                {RESOURCES}
                roles: {{worker: {{replicas: 2}}}}
            """,
            "jobs/mpi-queued.yaml": f"""
                framework: mpi
                {QUEUE}
                image: x:1
                {RESOURCES}
                roles: {{launcher: {{replicas: 1, command: [mpirun, python, t.py]}}, worker: {{replicas: 2}}}}
            """,
            "jobs/torch-queued.yaml": f"""
                framework: pytorch
                {QUEUE}
                image: x:1
                command: [torchrun, train.py]
                {RESOURCES}
                roles: {{master: {{replicas: 1}}, worker: {{replicas: 1}}}}
            """,
        },
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from kgen.cli import main

    root = _project(tmp_path_factory.mktemp("kueue"))
    import os

    here = os.getcwd()
    os.chdir(root)
    try:
        codes = [main(["build"]), main(["argocd"]), main(["flux"])]
    finally:
        os.chdir(here)
    assert codes == [0, 0, 0]
    return root


def _spec(root: Path, env: str, name: str) -> dict[str, Any]:
    text = (root / "manifests" / env / name).read_text()
    spec: dict[str, Any] = yaml.safe_load(text)["spec"]
    return spec


def test_a_queued_job_has_no_suspend_for_flux_to_take_back(built: Path):
    text = (built / "manifests/dev/xgb.xgboostjob.yaml").read_text()
    body = text[text.index("apiVersion:") :]
    assert body.splitlines()[:16] == [
        "apiVersion: kubeflow.org/v1",
        "kind: XGBoostJob",
        "metadata:",
        "  name: xgb",
        "  namespace: ml",
        "  labels:",
        "    app.kubernetes.io/managed-by: kgen",
        "    kueue.x-k8s.io/queue-name: team-a",
        "spec:",
        "  runPolicy:",
        "    cleanPodPolicy: None",
        "  xgbReplicaSpecs:",
        "    Master:",
        "      replicas: 1",
        "      restartPolicy: Never",
        "      template:",
    ]
    assert "suspend" not in text


def test_every_queued_kind_leaves_suspend_to_kueue(built: Path):
    assert _spec(built, "dev", "tf-queued.tfjob.yaml")["runPolicy"] == {
        "cleanPodPolicy": "None"
    }
    # A job no queue admits keeps the CRD default, which Argo CD's diff cannot see.
    assert _spec(built, "dev", "tf-plain.tfjob.yaml")["runPolicy"] == {
        "cleanPodPolicy": "None",
        "suspend": False,
    }
    assert _spec(built, "dev", "torch-queued.pytorchjob.yaml")["runPolicy"] == {
        "cleanPodPolicy": "None"
    }
    assert "suspend" not in _spec(built, "dev", "mpi-queued.mpijob.yaml")["runPolicy"]
    assert _spec(built, "hpc", "mpi-queued.mpijob.yaml")["runPolicy"] == {
        "cleanPodPolicy": "None"
    }
    trainjob = _spec(built, "trainer", "torch-queued.trainjob.yaml")
    assert "suspend" not in trainjob
    assert trainjob["managedBy"] == "trainer.kubeflow.org/trainjob-controller"


def test_argocd_still_ignores_suspend_and_flux_needs_nothing(built: Path):
    """Kueue's suspend is absent from the manifest, so neither tool owns it. Argo CD
    keeps ignoring it: a job applied by an earlier kgen has `suspend: false` in its
    last applied configuration, whose removal its diff would show."""
    app = yaml.safe_load((built / "argocd/dev.application.yaml").read_text())["spec"]
    assert app["ignoreDifferences"] == [
        {
            "group": "kubeflow.org",
            "kind": "MPIJob",
            "name": "mpi-queued",
            "jsonPointers": ["/spec/runPolicy/suspend"],
        },
        {
            "group": "kubeflow.org",
            "kind": "TFJob",
            "name": "tf-queued",
            "jsonPointers": ["/spec/runPolicy/suspend"],
        },
        {
            "group": "kubeflow.org",
            "kind": "PyTorchJob",
            "name": "torch-queued",
            "jsonPointers": ["/spec/runPolicy/suspend"],
        },
        {
            "group": "kubeflow.org",
            "kind": "XGBoostJob",
            "name": "xgb",
            "jsonPointers": ["/spec/runPolicy/suspend"],
        },
    ]
    trainer = (built / "argocd/trainer.application.yaml").read_text()
    assert "/spec/suspend" in trainer
    flux = (built / "flux/dev.kustomization.yaml").read_text()
    assert "suspend" not in flux.replace("c.type == 'Suspended'", "")


def test_import_reads_a_queued_job_without_suspend_as_current():
    policy: dict[str, object] = {"runPolicy": {"cleanPodPolicy": "None"}}
    assert target_of_manifest("kubeflow.org/v1", policy) == "training-operator-1.6"
    assert target_of_manifest("kubeflow.org/v1", policy, queued=True) == "v1"


def test_a_queued_job_imports_and_builds_back_unchanged(
    built: Path, tmp_path: Path, run_kgen: RunKgen
):
    source = tmp_path / "in" / "dev"
    source.mkdir(parents=True)
    given = (built / "manifests/dev/tf-queued.tfjob.yaml").read_text()
    (source / "tf-queued.tfjob.yaml").write_text(given)
    assert (
        run_kgen(
            "import", "in/dev/tf-queued.tfjob.yaml", "--out", "out", cwd=tmp_path
        ).code
        == 0
    )
    project = yaml.safe_load((tmp_path / "out/kgen.yaml").read_text())
    # Not training-operator-1.6, which a runPolicy without suspend otherwise means.
    assert project["environments"]["dev"]["overlays"] == ["v1"]
    assert run_kgen("build", cwd=tmp_path / "out").code == 0
    back = (tmp_path / "out/manifests/dev/tf-queued.tfjob.yaml").read_text()
    assert yaml.safe_load(back) == yaml.safe_load(given)


def test_a_suspend_asked_of_a_queued_trainjob_is_kept_and_warned(
    tmp_path: Path, run_kgen: RunKgen
):
    write_tree(
        tmp_path,
        {
            "kgen.yaml": """
                environments:
                  trainer: {overlays: [trainer], namespace: ml}
                lint: {ignore: {resources-missing: minimal specs}}
            """,
            "overlays/trainer.yaml": "target: trainer-v2.3\npatch: {nprocPerNode: null}\n",
            "jobs/held.yaml": f"""
                framework: pytorch
                {QUEUE}
                image: x:1
                command: [torchrun, train.py]
                trainJob: {{suspend: true}}
                roles: {{master: {{replicas: 1}}, worker: {{replicas: 1}}}}
            """,
        },
    )
    result = run_kgen("build", cwd=tmp_path)
    assert (result.code, result.err) == (
        0,
        "jobs/held.yaml:5:12: warning: Kueue holds this TrainJob suspended until "
        "admission; a suspend in the manifest suspends it again once admitted, at "
        "every Flux reconcile (trainjob-suspend-queued)\n"
        "    hint: remove trainJob.suspend; Kueue's webhook creates the job suspended\n"
        "kgen: 1 warning in 1 file\n"
        "kgen: 1 job in 1 environment (1 render): 3 files written, 0 removed, 0 unchanged\n",
    )
    assert _spec(tmp_path, "trainer", "held.trainjob.yaml")["suspend"] is True
