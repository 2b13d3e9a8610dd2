"""The GitHub Action (action.yml) and the pre-commit hooks (.pre-commit-hooks.yaml): their
commands run here, in a project `kgen init` made, as the runner and pre-commit would."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO

ACTION = yaml.safe_load((REPO / "action.yml").read_text())
HOOKS = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
KGEN = Path(sys.executable).parent / "kgen"
EXPRESSION = re.compile(r"\$\{\{\s*([a-z_.-]+)\s*\}\}")
GITOPS = {
    "argocd": 'argocd: {repoURL: "https://github.com/example-org/ml-gitops.git"}\n',
    "flux": "flux: {sourceRef: {name: ml-gitops}}\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    _run([os.fspath(KGEN), "init", os.fspath(root)], cwd=tmp_path)
    _run([os.fspath(KGEN), "build"], cwd=root)
    return root


def _run(args: list[str], cwd: Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, check=True, **kwargs
    )


def _steps() -> list[dict[str, Any]]:
    return list(ACTION["runs"]["steps"])


def _expand(value: str, context: dict[str, str]) -> str:
    return EXPRESSION.sub(lambda m: context[m.group(1)], value)


def _run_steps(root: Path, tmp: Path, github: dict[str, str]) -> dict[str, Any]:
    """Run every `run:` step as the runner would (bash -e, the step's env and folder),
    except the install, which the test's venv stands for; what each wrote and printed."""
    context = {
        f"inputs.{k}": str(v.get("default", "")) for k, v in ACTION["inputs"].items()
    }
    context |= {k: v for k, v in github.items() if k.startswith("github.")}
    results: dict[str, Any] = {}
    path = f"{KGEN.parent}{os.pathsep}{os.environ['PATH']}"
    for step in _steps():
        if "run" not in step or step.get("id") == "install":
            continue
        if "github.event_name == 'pull_request'" in step.get("if", "") and (
            github["github.event_name"] != "pull_request"
        ):
            continue
        output = tmp / f"{step['id']}.out"
        output.write_text("")
        env = {
            "GITHUB_STEP_SUMMARY": os.fspath(tmp / "summary.md"),
            "PATH": path,
            "RUNNER_TEMP": os.fspath(tmp),
            "GITHUB_OUTPUT": os.fspath(output),
            "GITHUB_ACTIONS": "true",
            # What the runner sets on a pull_request event.
            "GITHUB_BASE_REF": github.get("base_ref", ""),
            "KGEN_CACHE_DIR": os.environ["KGEN_CACHE_DIR"],
            **{k: _expand(str(v), context) for k, v in step.get("env", {}).items()},
        }
        folder = root / _expand(step.get("working-directory", "."), context)
        done = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        outputs = dict(
            line.split("=", 1)
            for line in output.read_text().splitlines()
            if "=" in line
        )
        results[step["id"]] = (done.returncode, done.stdout, outputs)
    return results


def test_no_expression_is_pasted_into_a_script():
    # Inputs and event fields reach scripts only through env: no shell injection.
    for step in _steps():
        assert "${{" not in step.get("run", ""), step["id"]


def test_the_action_installs_kgen_from_its_own_checkout():
    install = next(s for s in _steps() if s.get("id") == "install")
    assert install["run"] == 'python -m pip install --quiet "$GITHUB_ACTION_PATH"'
    assert (REPO / "pyproject.toml").is_file()  # what that path installs


PUSH = {
    "github.event_name": "push",
    "github.event.pull_request.head.repo.full_name": "",
    "github.repository": "org/ml",
}


def test_the_steps_pass_on_a_clean_project_and_write_sarif(project, tmp_path):
    results = _run_steps(project, tmp_path, PUSH)
    assert [code for code, _, _ in results.values()] == [0, 0, 0]
    assert "summary" not in results  # pull requests only
    sarif = Path(results["validate"][2]["sarif-file"])
    assert yaml.safe_load(sarif.read_text())["version"] == "2.1.0"
    assert results["can-upload"][2] == {"upload": "true"}


def test_the_steps_annotate_problems_and_fail(project, tmp_path):
    job = project / "jobs/mnist.yaml"
    job.write_text(job.read_text() + "image: latest-and-greatest:latest\n")
    results = _run_steps(project, tmp_path, PUSH)
    code, out, _ = results["validate"]
    assert code == 1
    assert out.startswith("::")  # GitHub annotations
    assert results["build-check"][0] == 1


def test_a_fork_pull_request_skips_the_sarif_upload_with_a_notice(project, tmp_path):
    fork = PUSH | {
        "github.event_name": "pull_request",
        "github.event.pull_request.head.repo.full_name": "someone/ml",
    }
    code, out, outputs = _run_steps(project, tmp_path, fork)["can-upload"]
    assert (code, outputs) == (0, {"upload": "false"})
    assert out == (
        "::notice title=kgen::SARIF upload skipped: a pull request from a fork has a"
        " read-only token; the annotations show every problem\n"
    )


def test_a_pull_request_gets_the_change_summary(project: Path, tmp_path: Path):
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["commit", "-qm", "init"],
    ):
        _run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=project,
        )
    job = project / "jobs/mnist.yaml"
    job.write_text(
        job.read_text().replace("worker: {replicas: 2}", "worker: {replicas: 3}")
    )
    _run([os.fspath(KGEN), "build"], cwd=project)
    pull = PUSH | {
        "github.event_name": "pull_request",
        "github.event.pull_request.head.repo.full_name": "org/ml",
        "base_ref": "main",
    }
    results = _run_steps(project, tmp_path, pull)
    assert results["summary"][0] == 0
    summary = (tmp_path / "summary.md").read_text()
    assert "| `prod-gpu` | 0 | 0 | 1 | 3 → 4 (+1) |" in summary
    assert results["can-upload"][2] == {"upload": "true"}


def test_the_upload_step_waits_for_the_decision():
    upload = next(s for s in _steps() if s.get("uses", "").startswith("github/codeql"))
    assert upload["if"] == "always() && steps.can-upload.outputs.upload == 'true'"


@pytest.mark.parametrize("hook", HOOKS, ids=[h["id"] for h in HOOKS])
def test_pre_commit_hooks_run_their_entry_on_the_files_they_match(hook, project):
    """As pre-commit runs a hook: its entry, plus the matching staged files unless
    pass_filenames is false; offline (kgen is installed, nothing is fetched)."""
    files = ["kgen.yaml", "jobs/mnist.yaml", "overlays/gpu.yaml", "README.md"]
    matched = [f for f in files if re.search(hook["files"], f)]
    assert "README.md" not in matched and "jobs/mnist.yaml" in matched
    args = hook["entry"].split()
    args[0] = os.fspath(KGEN)
    command = args[1]
    if command in GITOPS:
        # These check their folder in a project whose kgen.yaml configures it.
        with (project / "kgen.yaml").open("a") as config:
            config.write(GITOPS[command])
        _run([os.fspath(KGEN), command], cwd=project)
    if hook.get("pass_filenames", True):
        args += matched
    env = {
        **os.environ,
        "PATH": os.environ["PATH"],
        "no_proxy": "*",
        "https_proxy": "http://0.0.0.0:9",
    }
    assert _run(args, cwd=project, env=env).returncode == 0
    job = project / "jobs/mnist.yaml"
    job.write_text(job.read_text().replace("replicas: 2", "replicas: -2"))
    failed = subprocess.run(
        args, cwd=project, env=env, capture_output=True, check=False
    )
    assert failed.returncode == 1
    shutil.rmtree(project / "manifests", ignore_errors=True)
