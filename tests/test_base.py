"""`--base REF`: jobs changed in place flagged against a base commit read through git,
and `kgen diff --base REF --format markdown` for a pull-request comment."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import RunKgen

IN_PLACE = (
    "jobs/mnist.yaml:1:1: warning: mnist changes in place: a running job keeps its pods"
    " and a finished job never runs again (job-changed-in-place)\n"
)


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def branch(tmp_path: Path, run_kgen: RunKgen) -> Path:
    """A project committed on main, then a branch that scales the job and rebuilds."""
    assert run_kgen("init", cwd=tmp_path).code == 0
    assert run_kgen("build", cwd=tmp_path).code == 0
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "init")
    _git(tmp_path, "checkout", "-qb", "feature")
    job = tmp_path / "jobs/mnist.yaml"
    job.write_text(
        job.read_text().replace("worker: {replicas: 2}", "worker: {replicas: 3}")
    )
    assert run_kgen("build", cwd=tmp_path).code == 0
    _git(tmp_path, "commit", "-qam", "scale")
    return tmp_path


def test_the_index_in_a_pull_request_hides_the_change(branch: Path, run_kgen):
    result = run_kgen("validate", cwd=branch)
    assert (result.code, result.err) == (
        0,
        "kgen: 1 job in 2 environments (2 renders): valid\n",
    )


def test_validate_base_flags_the_change_in_place(branch: Path, run_kgen: RunKgen):
    result = run_kgen("validate", "--strict", "--base", "main", cwd=branch)
    assert result.code == 1
    assert result.err.startswith(IN_PLACE)


def test_ci_defaults_the_base_to_the_merge_base(
    branch: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_BASE_REF", "main")
    result = run_kgen("validate", "--format", "text", cwd=branch)
    assert result.code == 0
    assert result.err.startswith(IN_PLACE)


def test_ci_without_the_base_in_the_clone_says_why(
    branch: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_BASE_REF", "release")
    result = run_kgen("validate", "--format", "text", cwd=branch)
    assert result.code == 0
    assert result.err.startswith(
        "kgen: note: not comparing with the base: cannot find the merge base with the"
        " target branch 'release'; fetch it first: in GitHub Actions, actions/checkout"
        " with `fetch-depth: 0`; elsewhere `git fetch origin <branch>`\n"
    )


def test_diff_base_markdown_summarises_per_environment(branch: Path, run_kgen):
    result = run_kgen("diff", "--base", "main", "--format", "markdown", cwd=branch)
    assert result.code == 0
    assert result.out == (
        "### kgen: changes against `main`\n\n"
        "| environment | added | removed | changed | GPUs |\n"
        "|---|---:|---:|---:|---|\n"
        "| `dev-cpu` | 0 | 0 | 1 | 0 → 0 |\n"
        "| `prod-gpu` | 0 | 0 | 1 | 3 → 4 (+1) |\n\n"
        "> **Warning**: mnist changes in place: a running job keeps its pods and a"
        " finished job never runs again\n\n"
        "<details><summary><code>dev-cpu</code></summary>\n\n"
        "**Changed**\n\n- `pytorchjob/mnist`\n\n</details>\n\n"
        "<details><summary><code>prod-gpu</code></summary>\n\n"
        "**Changed**\n\n- `pytorchjob/mnist`\n\n</details>\n"
    )


def test_diff_base_unified_shows_the_object_change(branch: Path, run_kgen):
    result = run_kgen("diff", "--base", "main", "--env", "dev-cpu", cwd=branch)
    assert result.code == 0
    assert "--- main:dev-cpu/mnist.pytorchjob.yaml\n" in result.out
    assert "-      replicas: 2\n+      replicas: 3\n" in result.out
    assert "prod-gpu" not in result.out


def test_diff_markdown_needs_a_base(branch: Path, run_kgen: RunKgen):
    result = run_kgen("diff", "--format", "markdown", cwd=branch)
    assert (result.code, result.err) == (
        2,
        "kgen: error: there is no base to compare with: give --base REF"
        " (e.g. --base main)\n",
    )


@pytest.mark.parametrize("ref", ["--upload-pack=touch pwned", "-n", ""])
def test_an_option_looking_ref_is_refused(branch: Path, run_kgen: RunKgen, ref: str):
    result = run_kgen("validate", f"--base={ref}", cwd=branch)
    assert (result.code, result.err) == (
        2,
        f"kgen: error: --base '{ref}' is not a git revision\n",
    )
    assert not (branch / "pwned").exists()


def test_a_ref_missing_from_the_clone_has_the_fetch_hint(branch: Path, run_kgen):
    result = run_kgen("validate", "--base", "origin/main", cwd=branch)
    assert result.code == 2
    assert result.err == (
        "kgen: error: --base 'origin/main' is not a commit in this clone; fetch it"
        " first: in GitHub Actions, actions/checkout with `fetch-depth: 0`; elsewhere"
        " `git fetch origin <branch>`\n"
    )


def test_the_base_is_read_without_following_links_or_writing(
    branch: Path, run_kgen: RunKgen, tmp_path_factory: pytest.TempPathFactory
):
    outside = tmp_path_factory.mktemp("outside") / "secret.yaml"
    outside.write_text("framework: [\n")
    (branch / "jobs/linked.yaml").symlink_to(outside)
    _git(branch, "add", "-A")
    _git(branch, "commit", "-qm", "a link")
    _git(branch, "rm", "-q", "jobs/linked.yaml")
    _git(branch, "commit", "-qm", "no link")
    before = sorted(os.listdir(branch))
    result = run_kgen("validate", "--base", "HEAD~1", cwd=branch)
    assert (result.code, result.err) == (
        0,
        "kgen: 1 job in 2 environments (2 renders): valid\n",
    )
    assert sorted(os.listdir(branch)) == before


def test_base_outside_a_repository(tmp_path: Path, run_kgen: RunKgen):
    run_kgen("init", cwd=tmp_path)
    result = run_kgen("validate", "--base", "main", cwd=tmp_path)
    assert (result.code, result.err) == (
        2,
        "kgen: error: --base needs a git repository; this is not one\n",
    )


def test_a_huge_file_in_the_base_is_refused_like_in_the_working_tree(
    branch: Path, run_kgen: RunKgen
):
    (branch / "jobs/huge.yaml").write_bytes(b"# " + b"x" * (2 << 20) + b"\n")
    _git(branch, "add", "-A")
    _git(branch, "commit", "-qm", "huge")
    (branch / "jobs/huge.yaml").unlink()
    _git(branch, "commit", "-qam", "gone")
    result = run_kgen("validate", "--base", "HEAD~1", cwd=branch)
    # The base's problems are not the pull request's: only the comparison counts.
    assert (result.code, result.err) == (
        0,
        "kgen: 1 job in 2 environments (2 renders): valid\n",
    )


def test_a_project_in_a_folder_of_a_larger_repository(tmp_path: Path, run_kgen):
    (tmp_path / "other").mkdir()
    (tmp_path / "other/notes.txt").write_text("not kgen's\n")
    project = tmp_path / "training"
    assert run_kgen("init", "training", cwd=tmp_path).code == 0
    assert run_kgen("build", cwd=project).code == 0
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "init")
    job = project / "jobs/mnist.yaml"
    job.write_text(
        job.read_text().replace("worker: {replicas: 2}", "worker: {replicas: 3}")
    )
    assert run_kgen("build", cwd=project).code == 0
    result = run_kgen("validate", "--base", "main", cwd=project)
    assert result.err.startswith(IN_PLACE)


def test_diff_base_markdown_lists_the_team_objects_a_branch_adds(
    branch: Path, run_kgen: RunKgen
):
    # The team's objects are written beside the jobs' (resources/), and were left out
    # of both sides: a pull request that added a DaemonSet there was summarised as no
    # object changes at all.
    (branch / "resources").mkdir()
    (branch / "resources/settings.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"
    )
    result = run_kgen(
        "diff", "--base", "main", "--env", "dev-cpu", "--format", "markdown", cwd=branch
    )
    assert result.code == 0
    assert result.out == (
        "### kgen: changes against `main`\n\n"
        "| environment | added | removed | changed | GPUs |\n"
        "|---|---:|---:|---:|---|\n"
        "| `dev-cpu` | 1 | 0 | 1 | 0 → 0 |\n\n"
        "> **Warning**: mnist changes in place: a running job keeps its pods and a"
        " finished job never runs again\n\n"
        "<details><summary><code>dev-cpu</code></summary>\n\n"
        "**Added**\n\n- `configmap/settings`\n\n"
        "**Changed**\n\n- `pytorchjob/mnist`\n\n</details>\n"
    )


def test_diff_base_markdown_names_the_environments_of_a_change_in_place(
    branch: Path, run_kgen: RunKgen
):
    """A change an overlay makes reaches only its environments: the note named none."""
    _git(branch, "checkout", "-q", "main")
    _git(branch, "checkout", "-qb", "prod-only")
    prod = branch / "overlays/prod.yaml"
    prod.write_text(prod.read_text() + "  imagePullPolicy: Always\n")
    result = run_kgen("diff", "--base", "main", "--format", "markdown", cwd=branch)
    assert result.code == 0
    assert (
        "> **Warning**: mnist changes in place: a running job keeps its pods and a"
        " finished job never runs again (in environment prod-gpu)\n"
    ) in result.out
    assert result.err.splitlines()[2] == "    in environment prod-gpu"
