"""`--env E` on build, `build --check` and diff touches and compares only E's folder
and E's index entries: the other environments' manifests, their index lines and any
file kgen does not own stay exactly as they are (issue 14, F26)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import RunKgen
from tests.test_output_trees import snapshot

JOB = """\
framework: pytorch
image: registry.example.com/train:1.0
resources:
  requests: {cpu: "1", memory: 1Gi}
  limits: {cpu: "1", memory: 1Gi}
roles:
  master: {replicas: 1}
  worker: {replicas: 2}
"""
FILES = {
    "kgen.yaml": "environments:\n  dev: [v1]\n  prod: [v1]\n",
    "overlays/v1.yaml": "target: v1\n",
    "jobs/train.yaml": JOB,
    "jobs/eval.yaml": JOB,
}
INDEX = "manifests/.kgen-index"


@pytest.fixture
def built(tmp_path: Path, run_kgen: RunKgen) -> Path:
    """A project with two environments, built in full."""
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert run_kgen("build", cwd=tmp_path).code == 0
    return tmp_path


def _outside_dev(tree: dict[str, object]) -> dict[str, object]:
    """The snapshot of manifests/ but dev's folder and the index."""
    return {
        p: v
        for p, v in tree.items()
        if p != ".kgen-index" and p.partition("/")[0] != "dev"
    }


def _index_lines(root: Path, env: str) -> list[str]:
    text = (root / INDEX).read_text()
    return [line for line in text.splitlines() if line.startswith(f"manifests/{env}/")]


def _change_image(root: Path) -> None:
    job = root / "jobs/train.yaml"
    job.write_text(job.read_text().replace("train:1.0", "train:1.1"))


def test_build_env_leaves_other_environments_alone(
    built: Path, run_kgen: RunKgen
) -> None:
    before = snapshot(built / "manifests")
    prod_lines = _index_lines(built, "prod")
    _change_image(built)
    result = run_kgen("build", "--env", "dev", cwd=built)
    assert result.code == 0, result
    assert result.err.endswith(": 2 files written, 0 removed, 2 unchanged\n"), (
        result.err
    )
    after = snapshot(built / "manifests")
    assert _outside_dev(after) == _outside_dev(before)
    assert {p for p in after if p.startswith("prod/")} == {
        "prod/eval.pytorchjob.yaml",
        "prod/train.pytorchjob.yaml",
        "prod/kustomization.yaml",
    }
    assert _index_lines(built, "prod") == prod_lines
    assert after["dev/train.pytorchjob.yaml"] != before["dev/train.pytorchjob.yaml"]
    # prod still has the old image: only a full check says so.
    full = run_kgen("build", "--check", cwd=built)
    assert full.code == 1
    assert "modified: manifests/prod/train.pytorchjob.yaml\n" in full.err
    assert "manifests/dev/" not in full.err
    dev = run_kgen("build", "--check", "--env", "dev", cwd=built)
    assert (dev.code, dev.err) == (0, "kgen: manifests/ is up to date (4 files)\n")


def test_check_and_diff_env_see_only_that_environment(
    built: Path, run_kgen: RunKgen
) -> None:
    stale = built / "manifests/prod/old.pytorchjob.yaml"
    stale.write_text("kind: PyTorchJob\n")
    index = built / INDEX
    index.write_text(index.read_text() + "manifests/prod/old.pytorchjob.yaml\n")
    _change_image(built)
    check = run_kgen("build", "--check", "--env", "dev", cwd=built)
    assert check.code == 1
    assert check.err.startswith(
        "modified: manifests/dev/train.pytorchjob.yaml\n"
        "modified: manifests/.kgen-index\n"
    ), check.err
    assert "prod" not in check.err
    diff = run_kgen("diff", "--env", "dev", cwd=built)
    assert diff.code == 0
    assert "+++ b/manifests/prod" not in diff.out
    assert diff.err.endswith("a build would modify 2, add 0 and remove 0 files\n")
    # The stale file of prod is kept by a build of dev, and a full check reports it.
    assert run_kgen("build", "--env", "dev", cwd=built).code == 0
    assert stale.read_text() == "kind: PyTorchJob\n"
    assert "manifests/prod/old.pytorchjob.yaml" in index.read_text()
    full = run_kgen("build", "--check", cwd=built)
    assert full.code == 1
    assert "stale: manifests/prod/old.pytorchjob.yaml\n" in full.err
    assert run_kgen("build", cwd=built).code == 0
    assert not stale.exists()
    assert "old.pytorchjob" not in index.read_text()


def test_build_env_removes_its_own_stale_files(built: Path, run_kgen: RunKgen) -> None:
    (built / "jobs/eval.yaml").unlink()
    result = run_kgen("build", "--env", "prod", cwd=built)
    assert result.code == 0, result
    assert ": 2 files written, 1 removed, 1 unchanged\n" in result.err
    assert not (built / "manifests/prod/eval.pytorchjob.yaml").exists()
    assert (built / "manifests/dev/eval.pytorchjob.yaml").exists()
    assert "manifests/dev/eval.pytorchjob.yaml" in (built / INDEX).read_text()
    assert "manifests/prod/eval" not in (built / INDEX).read_text()
    kustomization = (built / "manifests/prod/kustomization.yaml").read_text()
    assert "eval" not in kustomization


def test_a_swap_keeps_empty_folders_it_did_not_make(
    built: Path, run_kgen: RunKgen
) -> None:
    (built / "manifests/notes/empty").mkdir(parents=True)
    _change_image(built)
    assert run_kgen("build", cwd=built).code == 0
    assert (built / "manifests/notes/empty").is_dir()
    # A folder the build emptied goes, as before.
    (built / "kgen.yaml").write_text("environments:\n  dev: [v1]\n")
    assert run_kgen("build", cwd=built).code == 0
    assert not (built / "manifests/prod").exists()
    assert (built / "manifests/notes/empty").is_dir()


def test_recovery_removes_only_folders_under_kgens_own_names(
    built: Path, run_kgen: RunKgen
) -> None:
    mine = built / ".manifests.kgen-mine"
    mine.mkdir()
    (mine / "kgen-staging").write_text("my notes\n")
    (built / ".manifests.kgen-new-x").mkdir()
    leftover = built / ".manifests.kgen-new-123"
    leftover.mkdir()
    (leftover / "kgen-staging").write_text("kgen stages a new output tree here\n")
    empty = built / ".manifests.kgen-new-456-0123abcd"
    empty.mkdir()
    _change_image(built)
    assert run_kgen("build", cwd=built).code == 0
    assert (mine / "kgen-staging").read_text() == "my notes\n"
    assert (built / ".manifests.kgen-new-x").is_dir()
    assert not leftover.exists()
    assert not empty.exists()
