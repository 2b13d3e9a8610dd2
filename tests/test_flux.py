"""`kgen flux`: a Kustomization per environment, its CEL health checks evaluated with a
CEL library against the same job states as the Argo CD Lua, claims kept from pruning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kgen.gitops.cel import health_exprs
from kgen.kinds import ALL_KINDS, kind_for
from kgen.kinds.targets import TARGETS
from tests.conftest import REPO, RunKgen, write_tree
from tests.test_argocd import _conditions, _health

celpy = pytest.importorskip("celpy")

STATES: list[dict[str, Any] | None] = [
    {},
    _conditions(("Created", "True")),
    _conditions(("Created", "True"), ("Running", "True")),
    _conditions(("Running", "True"), ("Restarting", "True")),
    _conditions(("Running", "False"), ("Succeeded", "True")),
    _conditions(("Running", "False"), ("Failed", "True")),
    _conditions(("Succeeded", "True"), ("Failed", "True")),
    _conditions(("Suspended", "True")),
    _conditions(("Suspended", "True"), ("Running", "True")),
    _conditions(("Failed", "False"), ("Succeeded", "False")),
    _conditions(("Running", "True"), ("Failed", "True")),
]


def _flux(exprs: dict[str, str], status: dict[str, Any]) -> str:
    """What Flux makes of the expressions, in its order (RFC 0009): inProgress, failed,
    current, else in progress; the expressions must also exclude each other."""
    env = celpy.Environment()
    truth = {
        name: bool(
            env.program(env.compile(text)).evaluate(
                {"status": celpy.json_to_cel(status)}
            )
        )
        for name, text in exprs.items()
    }
    assert sum(truth.values()) <= 1, truth
    for name, result in (
        ("inProgress", "InProgress"),
        ("failed", "Failed"),
        ("current", "Current"),
    ):
        if truth.get(name):
            return result
    return "InProgress"


def _expected(status: dict[str, Any]) -> str:
    """The Lua's verdict, as Flux should see it: running counts as ready."""
    health, _ = _health(status)
    running = any(
        c["type"] == "Running" and c["status"] == "True"
        for c in status.get("conditions", [])
    )
    if health == "Degraded":
        return "Failed"
    if health == "Healthy" or (health == "Progressing" and running):
        return "Current"
    return "InProgress"


@pytest.mark.parametrize("framework", ["pytorch", "tensorflow"])
@pytest.mark.parametrize("status", STATES)
def test_cel_agrees_with_the_lua(framework: str, status: dict[str, Any]):
    exprs = health_exprs(kind_for(framework).health)
    assert _flux(exprs, status) == _expected(status)


def test_the_cel_of_the_same_states_exactly():
    exprs = health_exprs(kind_for("pytorch").health)
    verdicts = [_flux(exprs, s) for s in STATES if s is not None]
    assert verdicts == [
        "InProgress",
        "InProgress",
        "Current",
        "Current",
        "Current",
        "Failed",
        "Failed",
        "InProgress",
        "InProgress",
        "InProgress",
        "Failed",
    ]


def test_committed_flux_files_are_current_and_cover_every_kind(run_kgen: RunKgen):
    result = run_kgen("flux", "--check", cwd=REPO)
    assert result.code == 0, f"{result}\nrun `kgen flux` and commit flux/"
    body = yaml.safe_load((REPO / "flux/kf06-cpu.kustomization.yaml").read_text())
    assert body["apiVersion"] == "kustomize.toolkit.fluxcd.io/v1"
    spec = body["spec"]
    assert (spec["path"], spec["prune"], spec["wait"]) == (
        "./manifests/kf06-cpu",
        True,
        True,
    )
    assert spec["targetNamespace"] == "kubeflow"
    covered = {(e["apiVersion"], e["kind"]) for e in spec["healthCheckExprs"]}
    assert covered == {
        (TARGETS[t].api_version, kind.kind) for kind in ALL_KINDS for t in kind.targets
    }
    for entry in spec["healthCheckExprs"]:
        kind = next(k for k in ALL_KINDS if k.kind == entry["kind"])
        assert {k: v for k, v in entry.items() if k not in ("apiVersion", "kind")} == (
            health_exprs(kind.health)
        )
    dev = yaml.safe_load((REPO / "flux/dev-cpu.kustomization.yaml").read_text())
    assert "targetNamespace" not in dev["spec"]  # its objects carry ml-dev


CLAIM_JOB = """
    framework: tensorflow
    image: x:1
    roles: {worker: {replicas: 2}}
    volumes:
      - {name: data, claim: data, mountPath: /data, create: {size: 1Gi}}
"""


def _project(root: Path, flux: str) -> None:
    write_tree(
        root,
        {
            "kgen.yaml": f"""
                {flux}
                environments:
                  dev: {{namespace: ml}}
                lint: {{ignore: {{resources-missing: minimal specs}}}}
            """,
            "jobs/train.yaml": CLAIM_JOB,
        },
    )


def test_claims_carry_flux_prune_protection_only_with_flux(tmp_path, run_kgen):
    _project(tmp_path, "")
    run_kgen("build", cwd=tmp_path)
    claim = tmp_path / "manifests/dev/data.persistentvolumeclaim.yaml"
    assert "kustomize.toolkit.fluxcd.io/prune" not in claim.read_text()
    _project(tmp_path, "flux: {sourceRef: {name: repo}}")
    run_kgen("build", cwd=tmp_path)
    annotations = yaml.safe_load(claim.read_text())["metadata"]["annotations"]
    assert annotations == {
        "argocd.argoproj.io/sync-options": "Prune=false,Delete=false",
        "kustomize.toolkit.fluxcd.io/prune": "disabled",
    }


def test_flux_needs_a_namespace_per_environment(tmp_path: Path, run_kgen):
    write_tree(
        tmp_path,
        {
            "kgen.yaml": """
                flux: {sourceRef: {name: repo}}
                environments:
                  dev: []
            """,
            "jobs/.keep": "",
        },
    )
    result = run_kgen("flux", cwd=tmp_path)
    assert (result.code, result.err) == (
        1,
        "kgen.yaml:3:3: error: environment 'dev' has no namespace to deploy into"
        " (gitops-destination)\n"
        "    hint: set its `namespace`, or flux.targetNamespaces: {dev: <namespace>}"
        " in kgen.yaml\n"
        "kgen: 1 error in 1 file\n",
    )


def test_flux_needs_settings(tmp_path: Path, run_kgen: RunKgen):
    write_tree(tmp_path, {"kgen.yaml": "environments:\n  dev: []\n", "jobs/.keep": ""})
    result = run_kgen("flux", cwd=tmp_path)
    assert (result.code, result.err) == (
        1,
        "kgen.yaml:1:1: error: kgen.yaml has no flux: section, which kgen flux reads (missing-key)\n"
        "    hint: add `flux: {sourceRef: {name: <the GitRepository of this repository>}}` (docs/gitops.md)\n"
        "kgen: 1 error in 1 file\n",
    )


ELASTIC_JOB = """
    framework: pytorch
    image: x:1
    command: [torchrun, train.py]
    elasticPolicy:
      minReplicas: 2
      maxReplicas: 8
      rdzvBackend: c10d
      metrics:
        - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}
    roles: {worker: {replicas: 4}}
"""


def test_flux_applies_an_autoscaled_job_once(tmp_path: Path, run_kgen: RunKgen):
    """The HPA sets Worker.replicas, which Flux's server-side apply would take back at
    every reconcile; the manifest cannot leave them out, so Flux creates the job and
    leaves it alone (kustomize.toolkit.fluxcd.io/ssa: IfNotPresent)."""
    for flux, expected in (
        ("", None),
        (
            "flux: {sourceRef: {name: repo}}",
            {"kustomize.toolkit.fluxcd.io/ssa": "IfNotPresent"},
        ),
    ):
        write_tree(
            tmp_path,
            {
                "kgen.yaml": f"""
                    {flux}
                    environments:
                      dev: {{namespace: ml}}
                    lint: {{ignore: {{resources-missing: minimal specs}}}}
                """,
                "jobs/elastic.yaml": ELASTIC_JOB,
                "jobs/train.yaml": CLAIM_JOB,
            },
        )
        assert run_kgen("build", cwd=tmp_path).code == 0
        out = tmp_path / "manifests/dev"
        elastic = yaml.safe_load((out / "elastic.pytorchjob.yaml").read_text())
        assert elastic["metadata"].get("annotations") == expected
        assert elastic["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] == 4
        # A job no HPA scales keeps Flux's drift correction.
        train = (out / "train.tfjob.yaml").read_text()
        assert "kustomize.toolkit.fluxcd.io/ssa" not in train


def test_the_committed_autoscaled_job_is_applied_once():
    text = (REPO / "manifests/prod-gpu/llm-elastic.pytorchjob.yaml").read_text()
    meta = yaml.safe_load(text)["metadata"]
    assert meta["annotations"] == {"kustomize.toolkit.fluxcd.io/ssa": "IfNotPresent"}
