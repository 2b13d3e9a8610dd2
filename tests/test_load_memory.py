"""Many jobs parsed in this process keep no positions (as jobs from workers), and still
locate a problem; a small project's jobs keep theirs, so reading problems never parses
a spec twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgen.load import jobs as load_jobs
from kgen.load.project import load_project

JOB = (
    "framework: pytorch\nimage: example.com/train:1\nroles:\n  master: {replicas: 1}\n"
)


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "kgen.yaml").write_text("environments:\n  dev: {}\n")
    (root / "jobs").mkdir()
    for name in "abc":
        (root / "jobs" / f"{name}.yaml").write_text(JOB)
    return root


@pytest.mark.parametrize(("least", "kept"), [(200, True), (2, False)])
def test_positions_kept_only_for_few_jobs(
    least: int, kept: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("KGEN_WORKERS", "1")
    monkeypatch.setattr(load_jobs, "MIN_PARALLEL", least)
    project, problems = load_project(_project(tmp_path / "p"), use_cache=False)
    assert project is not None and not problems
    assert [job._doc is not None for job in project.jobs] == [kept] * 3
    job = project.jobs[0]
    assert job.data["image"] == "example.com/train:1"
    assert job.doc.origin(("image",)).line == 2  # parsed again if need be
