"""The CI workflow and pre-commit hooks `kgen init` writes fail on stale argocd/ and flux/
output in a project that configures them, and stay green in one that configures neither:
`kgen argocd --check --if-configured` and `kgen flux --check --if-configured`."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import yaml

from kgen import __version__
from tests.conftest import RunKgen

GITOPS = (
    'argocd: {repoURL: "https://github.com/example-org/ml-gitops.git"}\n'
    "flux: {sourceRef: {name: ml-gitops}}\n"
)
STAGING = "  staging-cpu: {overlays: [cpu, v1], namespace: ml-staging}\n"


def _workflow_commands(root: Path) -> list[list[str]]:
    """The kgen commands of the workflow's steps, in order, as argument lists."""
    steps = yaml.safe_load((root / ".github/workflows/kgen.yml").read_text())
    runs = [s["run"] for s in steps["jobs"]["kgen"]["steps"] if "run" in s]
    return [shlex.split(run)[1:] for run in runs if run.startswith("kgen ")]


def _hooks(root: Path) -> dict[str, str]:
    config = yaml.safe_load((root / ".pre-commit-config.yaml").read_text())
    return {hook["id"]: hook["entry"] for hook in config["repos"][0]["hooks"]}


def test_the_workflow_checks_argocd_and_flux_where_configured(
    tmp_path: Path, run_kgen: RunKgen
):
    assert run_kgen("init", cwd=tmp_path).code == 0
    assert _workflow_commands(tmp_path) == [
        ["validate", "--strict"],
        ["build", "--check", "--diff"],
        ["argocd", "--check", "--if-configured"],
        ["flux", "--check", "--if-configured"],
    ]
    pin = f"kgen-kubeflow=={__version__}"
    assert (tmp_path / ".pre-commit-config.yaml").read_text().count(pin) == 4
    assert _hooks(tmp_path) == {
        "kgen-validate": "kgen validate --strict",
        "kgen-build-check": "kgen build --check",
        "kgen-argocd-check": "kgen argocd --check --if-configured",
        "kgen-flux-check": "kgen flux --check --if-configured",
    }


def test_the_workflow_is_green_for_a_new_project(tmp_path: Path, run_kgen: RunKgen):
    assert run_kgen("init", cwd=tmp_path).code == 0
    assert run_kgen("build", cwd=tmp_path).code == 0
    codes = [
        run_kgen(*args, cwd=tmp_path).code for args in _workflow_commands(tmp_path)
    ]
    assert codes == [0, 0, 0, 0]
    assert not (tmp_path / "argocd").exists()
    assert not (tmp_path / "flux").exists()


def test_the_workflow_fails_on_a_new_environment_argocd_and_flux_lack(
    tmp_path: Path, run_kgen: RunKgen
):
    assert run_kgen("init", cwd=tmp_path).code == 0
    project = tmp_path / "kgen.yaml"
    project.write_text(project.read_text() + GITOPS)
    for command in ("build", "argocd", "flux"):
        assert run_kgen(command, cwd=tmp_path).code == 0
    commands = _workflow_commands(tmp_path)
    assert [run_kgen(*args, cwd=tmp_path).code for args in commands] == [0, 0, 0, 0]
    text = project.read_text()
    project.write_text(text.replace("environments:\n", "environments:\n" + STAGING, 1))
    assert run_kgen("build", cwd=tmp_path).code == 0
    results = [run_kgen(*args, cwd=tmp_path) for args in commands]
    assert [r.code for r in results] == [0, 0, 1, 1]
    assert results[2].err == (
        "modified: argocd/.kgen-index\n"
        "missing: argocd/staging-cpu.application.yaml\n"
        "kgen: argocd/ is out of date; run `kgen argocd`\n"
    )
    assert results[3].err == (
        "modified: flux/.kgen-index\n"
        "missing: flux/staging-cpu.kustomization.yaml\n"
        "kgen: flux/ is out of date; run `kgen flux`\n"
    )


@pytest.mark.parametrize("command", ["argocd", "flux"])
@pytest.mark.parametrize("check", [("--check",), ()])
def test_if_configured_leaves_a_project_without_the_section_alone(
    tmp_path: Path, run_kgen: RunKgen, command: str, check: tuple[str, ...]
):
    assert run_kgen("init", cwd=tmp_path).code == 0
    result = run_kgen(command, *check, "--if-configured", cwd=tmp_path)
    assert (result.code, result.out, result.err) == (
        0,
        "",
        f"kgen: kgen.yaml has no {command}: section; nothing to do (--if-configured)\n",
    )
    assert not (tmp_path / command).exists()
    # Without it, the section is what the command reads: its absence is an error.
    assert run_kgen(command, *check, cwd=tmp_path).code == 1
    # It stops before rendering a job: what is wrong with one is validate's to say.
    job = tmp_path / "jobs/mnist.yaml"
    job.write_text(job.read_text().replace("replicas: 2", "replicas: -2"))
    again = run_kgen(command, *check, "--if-configured", cwd=tmp_path)
    assert (again.code, again.out, again.err) == (0, "", result.err)
