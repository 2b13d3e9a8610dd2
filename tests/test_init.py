"""`kgen init`: a project that builds and validates clean at once, never overwritten
without --force, and its CI and pre-commit pinned to the installed kgen."""

from __future__ import annotations

import os
from pathlib import Path

from kgen import __version__
from tests.conftest import REPO, RunKgen


def test_init_builds_and_validates_clean(tmp_path: Path, run_kgen: RunKgen):
    made = run_kgen("init", "project", cwd=tmp_path)
    assert made.code == 0, made
    assert made.err == (
        "kgen: wrote a project (13 files) in project\n"
        "next: cd project && kgen build && kgen validate, then commit\n"
    )
    project = tmp_path / "project"
    assert run_kgen("build", cwd=project).code == 0
    valid = run_kgen("validate", "--strict", cwd=project)
    assert (valid.code, valid.err) == (
        0,
        "kgen: 1 job in 2 environments (2 renders): valid\n",
    )
    # The editor schemas its files name, as `kgen schema` writes them (the job
    # envelopes are for tools that check the output: `kgen schema` adds them).
    editor = [
        "kgen-job.schema.json",
        "kgen-overlay.schema.json",
        "kgen-project.schema.json",
    ]
    assert sorted(os.listdir(project / "schemas")) == editor
    for name in editor:
        assert (project / "schemas" / name).read_text() == (
            REPO / "schemas" / name
        ).read_text()
    assert sorted(os.listdir(project / "manifests")) == [
        ".kgen-index",
        "dev-cpu",
        "prod-gpu",
    ]


def test_init_pins_ci_and_pre_commit_to_this_version(tmp_path: Path, run_kgen):
    run_kgen("init", cwd=tmp_path)
    pin = f"kgen-kubeflow=={__version__}"
    assert pin in (tmp_path / ".github/workflows/kgen.yml").read_text()
    assert (tmp_path / ".pre-commit-config.yaml").read_text().count(pin) == 2
    first = (tmp_path / "jobs/mnist.yaml").read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=../schemas/kgen-job.schema.json"


def test_init_refuses_to_overwrite(tmp_path: Path, run_kgen: RunKgen):
    (tmp_path / "kgen.yaml").write_text("mine\n")
    refused = run_kgen("init", cwd=tmp_path)
    assert (refused.code, refused.err) == (
        2,
        "kgen: error: . already has kgen.yaml; kgen init never overwrites"
        " (--force replaces them)\n",
    )
    assert (tmp_path / "kgen.yaml").read_text() == "mine\n"
    assert sorted(os.listdir(tmp_path)) == ["kgen.yaml"]


def test_init_force_lists_what_it_replaces(tmp_path: Path, run_kgen: RunKgen):
    run_kgen("init", cwd=tmp_path)
    (tmp_path / "kgen.yaml").write_text("mine\n")
    forced = run_kgen("init", "--force", cwd=tmp_path)
    assert forced.code == 0
    assert forced.err.splitlines()[0] == "replaced: kgen.yaml"
    assert "mine" not in (tmp_path / "kgen.yaml").read_text()


def test_init_keeps_an_existing_gitignore(tmp_path: Path, run_kgen: RunKgen):
    (tmp_path / ".gitignore").write_text("node_modules/")
    assert run_kgen("init", cwd=tmp_path).code == 0
    assert (tmp_path / ".gitignore").read_text() == (
        "node_modules/\n# kgen's build lock and staging folders beside the output root\n"
        ".*.kgen-*\n"
    )


def test_init_never_writes_through_a_link(tmp_path: Path, run_kgen: RunKgen):
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / "jobs").symlink_to(outside)
    refused = run_kgen("init", "--force", "project", cwd=tmp_path)
    assert refused.code == 1
    assert "project/jobs is a symbolic link; kgen does not write through links" in (
        refused.err
    )
    assert os.listdir(outside) == []
    assert not (project / "kgen.yaml").exists()
