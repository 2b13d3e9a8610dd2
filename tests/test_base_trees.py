"""`--base REF` on a commit whose tree this clone cannot turn back into files: a name
the file system refuses, a blob the clone lacks (a partial or damaged clone). Both are
the reader's problem with the base, a usage error naming the file, never a crash."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import RunKgen


def _git(root: Path, *args: str, data: str | None = None) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        input=data,
        text=True,
    )
    return done.stdout.strip()


@pytest.fixture
def project(tmp_path: Path, run_kgen: RunKgen) -> Path:
    assert run_kgen("init", cwd=tmp_path).code == 0
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "init")
    return tmp_path


def _commit_with_job(root: Path, name: str, text: str) -> tuple[str, str]:
    """A commit of HEAD's tree plus jobs/<name>, made by hand; (commit, blob)."""
    blob = _git(root, "hash-object", "-w", "--stdin", data=text)
    jobs = _git(root, "ls-tree", "HEAD:jobs") + f"\n100644 blob {blob}\t{name}\n"
    jobs_tree = _git(root, "mktree", data=jobs)
    top = [
        line
        for line in _git(root, "ls-tree", "HEAD").splitlines()
        if not line.endswith("\tjobs")
    ]
    tree = _git(
        root, "mktree", data="\n".join([*top, f"040000 tree {jobs_tree}\tjobs"])
    )
    return _git(root, "commit-tree", tree, "-m", "by hand"), blob


def test_a_base_name_the_file_system_refuses(project: Path, run_kgen: RunKgen):
    name = "b" * 300 + ".yaml"
    commit, _ = _commit_with_job(project, name, "framework: pytorch\n")
    result = run_kgen("validate", "--base", commit, cwd=project)
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"kgen: error: the base commit holds 'jobs/{'b' * 195}...', which cannot be"
        " written here (File name too long); compare with another base\n"
    )


def test_a_base_blob_missing_from_the_clone(project: Path, run_kgen: RunKgen):
    commit, blob = _commit_with_job(project, "lost.yaml", "framework: pytorch\n")
    (project / ".git/objects" / blob[:2] / blob[2:]).unlink()
    result = run_kgen("diff", "--base", commit, cwd=project)
    assert (result.code, result.out) == (2, "")
    assert result.err.startswith(
        "kgen: error: the base commit's 'jobs/lost.yaml' is missing from this clone"
        " (a partial or damaged clone); fetch it first"
    )


def test_the_ci_note_quotes_a_long_or_secret_target_branch_short_and_masked(
    project: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_BASE_REF", "password=hunter2hunter2-" + "b" * 3000)
    result = run_kgen("validate", "--format", "text", cwd=project)
    assert result.code == 0
    note = result.err.splitlines()[0]
    assert note.startswith(
        "kgen: note: not comparing with the base: cannot find the merge base with the"
        " target branch 'password=***"
    )
    assert "hunter2" not in result.err and len(note) < 600
