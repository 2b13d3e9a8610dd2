"""Argo CD artefacts: the health check runs in real Lua, apps and ignoreDifferences."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kgen.gitops.health import health_lua
from kgen.kinds import kind_for
from tests.conftest import REPO, RunKgen, write_tree

lupa = pytest.importorskip("lupa")
HEALTH_LUA = health_lua(kind_for("pytorch").health)
# Kubeflow Trainer v2's TrainJob: conditions Complete, Failed, Suspended.
TRAINJOB_KEY = "resource.customizations.health.trainer.kubeflow.org_TrainJob"
TRAINJOB_LUA = health_lua(kind_for("pytorch", "trainer-v2.3").health)


def _health(status: dict[str, Any] | None) -> tuple[str, str]:
    lua = lupa.LuaRuntime(unpack_returned_tuples=True)
    obj = {"kind": "PyTorchJob"} | ({"status": status} if status is not None else {})
    check = lua.eval(f"function(obj)\n{HEALTH_LUA}\nend")
    result = check(_to_lua(lua, obj))
    return result["status"], result["message"]


def _to_lua(lua: Any, value: Any) -> Any:
    if isinstance(value, dict):
        return lua.table_from({k: _to_lua(lua, v) for k, v in value.items()})
    if isinstance(value, list):
        return lua.table_from([_to_lua(lua, v) for v in value])
    return value


def _conditions(*pairs: tuple[str, str], message: str = "") -> dict[str, Any]:
    return {
        "conditions": [
            {"type": t, "status": s, "message": message or f"{t} message"}
            for t, s in pairs
        ]
    }


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (None, ("Progressing", "Waiting for the training job to finish")),
        ({}, ("Progressing", "Waiting for the training job to finish")),
        (
            _conditions(("Created", "True")),
            ("Progressing", "Waiting for the training job to finish"),
        ),
        (
            _conditions(("Created", "True"), ("Running", "True")),
            ("Progressing", "Waiting for the training job to finish"),
        ),
        (
            _conditions(("Running", "True"), ("Restarting", "True")),
            ("Progressing", "Waiting for the training job to finish"),
        ),
        (
            _conditions(("Running", "False"), ("Succeeded", "True")),
            ("Healthy", "Succeeded message"),
        ),
        (
            _conditions(
                ("Running", "False"),
                ("Failed", "True"),
                message="backoff limit reached",
            ),
            ("Degraded", "backoff limit reached"),
        ),
        (
            _conditions(("Succeeded", "True"), ("Failed", "True")),
            ("Degraded", "Failed message"),
        ),
        (_conditions(("Suspended", "True")), ("Suspended", "Suspended message")),
        (
            _conditions(("Failed", "False"), ("Succeeded", "False")),
            ("Progressing", "Waiting for the training job to finish"),
        ),
    ],
)
def test_health_check(status: dict[str, Any] | None, expected: tuple[str, str]):
    assert _health(status) == expected


def test_committed_argocd_files_are_current_and_carry_the_health_check(
    run_kgen: RunKgen,
):
    result = run_kgen("argocd", "--check", cwd=REPO)
    assert result.code == 0, f"{result}\nrun `kgen argocd` and commit argocd/"
    health = REPO / "argocd" / "health"
    patch = yaml.safe_load((health / "kustomization-patch.yaml").read_text())
    values = yaml.safe_load((health / "helm-values.yaml").read_text())
    # A patch of argocd-cm's data only: no labels or other keys that would replace
    # what an installation set.
    assert set(patch) == {"apiVersion", "kind", "metadata", "data"}
    assert patch["metadata"] == {"name": "argocd-cm", "namespace": "argocd"}
    assert set(values) == {"configs"} and set(values["configs"]) == {"cm"}
    for data in (patch["data"], values["configs"]["cm"]):
        assert set(data) == {
            "resource.customizations.health.kubeflow.org_PyTorchJob",
            "resource.customizations.health.kubeflow.org_TFJob",
            "resource.customizations.health.kubeflow.org_MPIJob",
            "resource.customizations.health.kubeflow.org_XGBoostJob",
            "resource.customizations.health.kubeflow.org_JAXJob",
            "resource.customizations.health.kubeflow.org_PaddleJob",
            TRAINJOB_KEY,
        }
        assert all(
            script == HEALTH_LUA for key, script in data.items() if key != TRAINJOB_KEY
        )
        assert data[TRAINJOB_KEY] == TRAINJOB_LUA
    assert not (REPO / "argocd" / "argocd-cm.health.yaml").exists()


def test_applications_point_at_each_environment_and_ignore_hpa_replicas():
    apps = {
        p.name: yaml.safe_load(p.read_text())
        for p in (REPO / "argocd").glob("*.application.yaml")
    }
    assert set(apps) == {
        f"{env}.application.yaml"
        for env in (
            "dev-cpu",
            "prod-gpu",
            "hpc-gpu",
            "to16-gpu",
            "kf12-gpu",
            "kf06-cpu",
            "kf06-gpu",
            "kf04-cpu",
            "kf04-gpu",
            "trainer-gpu",
            "trainer21-gpu",
        )
    }
    prod = apps["prod-gpu.application.yaml"]["spec"]
    assert prod["source"]["path"] == "manifests/prod-gpu"
    assert prod["destination"]["namespace"] == "ml-prod"
    assert prod["ignoreDifferences"] == [
        {
            "group": "kubeflow.org",
            "kind": "PyTorchJob",
            "name": "llm-elastic",
            "jsonPointers": ["/spec/pytorchReplicaSpecs/Worker/replicas"],
        }
    ]
    assert "RespectIgnoreDifferences=true" in prod["syncPolicy"]["syncOptions"]
    assert "ignoreDifferences" not in apps["kf06-cpu.application.yaml"]["spec"]


def test_kueue_jobs_ignore_suspend_and_applicationset_mode(
    tmp_path: Path, run_kgen: RunKgen
):
    write_tree(
        tmp_path,
        {
            "kgen.yaml": """
                argocd: {repoURL: "https://git.example.com/ml.git", mode: applicationset}
                environments:
                  dev: {namespace: ml}
                lint: {ignore: {resources-missing: minimal specs}}
            """,
            "jobs/queued.yaml": """
                framework: tensorflow
                image: x:1
                labels: {kueue.x-k8s.io/queue-name: team-a}
                roles: {worker: {replicas: 2}}
            """,
        },
    )
    assert run_kgen("argocd", cwd=tmp_path).code == 0
    appset = yaml.safe_load((tmp_path / "argocd" / "applicationset.yaml").read_text())
    generator = appset["spec"]["generators"][0]["list"]
    # Each environment with the namespace it deploys into, never its folder's name.
    assert generator == {
        "elements": [{"env": "dev", "namespace": "ml", "path": "manifests/dev"}]
    }
    template = appset["spec"]["template"]
    assert template["spec"]["source"]["path"] == "{{path}}"
    assert template["spec"]["destination"]["namespace"] == "{{namespace}}"
    from kgen.gitops.argocd import ignore_differences
    from kgen.load.project import load_project
    from kgen.pipeline.run import run

    project, _ = load_project(tmp_path)
    assert project is not None
    assert ignore_differences(run(project, keep=True), "dev") == [
        {
            "group": "kubeflow.org",
            "kind": "TFJob",
            "name": "queued",
            "jsonPointers": ["/spec/runPolicy/suspend"],
        }
    ]


def test_argocd_needs_settings(tmp_path: Path, run_kgen: RunKgen):
    write_tree(tmp_path, {"kgen.yaml": "environments:\n  dev: []\n", "jobs/.keep": ""})
    result = run_kgen("argocd", cwd=tmp_path)
    assert (result.code, result.err) == (
        1,
        "kgen.yaml:1:1: error: kgen.yaml has no argocd: section, which kgen argocd reads (missing-key)\n"
        "    hint: add `argocd: {repoURL: <this repository's URL>}` (docs/gitops.md)\n"
        "kgen: 1 error in 1 file\n",
    )


def test_render_without_a_job_prints_the_whole_environment(run_kgen: RunKgen):
    result = run_kgen("render", "--env", "kf06-cpu", cwd=REPO)
    kinds = [d["kind"] for d in yaml.safe_load_all(result.out)]
    assert result.code == 0 and sorted(kinds) == sorted(
        [
            "PyTorchJob",
            "PersistentVolumeClaim",
            "Deployment",
            "Service",
            "PyTorchJob",
            "TFJob",
            "TFJob",
        ]
    )
