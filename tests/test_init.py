"""`kgen init`: a project that builds and validates clean at once, never overwritten
without --force, and its CI and pre-commit pinned to the installed kgen."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from kgen import __version__
from kgen.errors import shortened
from tests.conftest import REPO, RunKgen


def test_init_builds_and_validates_clean(tmp_path: Path, run_kgen: RunKgen):
    made = run_kgen("init", "project", cwd=tmp_path)
    assert made.code == 0, made
    assert made.err == (
        "kgen: wrote a project (60 files) in project\n"
        "next: cd project && kgen build && kgen validate, then commit\n"
    )
    project = tmp_path / "project"
    assert run_kgen("build", cwd=project).code == 0
    valid = run_kgen("validate", "--strict", cwd=project)
    assert (valid.code, valid.err) == (
        0,
        "kgen: 1 job in 2 environments (2 renders): valid\n",
    )
    # What `kgen schema` writes (the editor schemas and the job envelopes): its check
    # passes in a new project.
    assert "kgen-job.schema.json" in os.listdir(project / "schemas")
    assert sorted(os.listdir(project / "schemas")) == sorted(
        p.name for p in (REPO / "schemas").glob("*.schema.json")
    )
    checked = run_kgen("schema", "--check", cwd=project)
    assert (checked.code, checked.err) == (0, "")
    assert sorted(os.listdir(project / "manifests")) == [
        ".kgen-index",
        "dev-cpu",
        "prod-gpu",
    ]


def test_init_pins_ci_and_pre_commit_to_this_version(tmp_path: Path, run_kgen):
    run_kgen("init", cwd=tmp_path)
    pin = f"kgen-kubeflow=={__version__}"
    assert pin in (tmp_path / ".github/workflows/kgen.yml").read_text()
    assert (tmp_path / ".pre-commit-config.yaml").read_text().count(pin) == 4
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


@pytest.mark.parametrize("folder", ["away", "away/project", "./away/"])
def test_init_never_writes_into_a_linked_project_folder(
    tmp_path: Path, run_kgen: RunKgen, folder: str
):
    # A pull request can plant the folder CI runs `kgen init DIR` on as a link.
    outside = tmp_path / "outside"
    outside.mkdir()
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "away").symlink_to(outside)
    refused = run_kgen("init", folder, cwd=checkout)
    assert (refused.code, refused.err) == (
        1,
        "away: error: away is a symbolic link; kgen does not write through links (io)\n"
        "    hint: remove the link; kgen writes the file itself\n"
        "kgen: 1 error in 1 file\n",
    )
    assert os.listdir(outside) == []


# init reports the link as a problem (1), import as a usage error (2), as ever.
@pytest.mark.parametrize(
    ("command", "code"), [(("init",), 1), (("import", "j.yaml", "--out"), 2)]
)
@pytest.mark.parametrize("how", ["absolute", "new/../away/project"])
def test_no_command_writes_into_a_linked_folder_named_another_way(
    tmp_path: Path, run_kgen: RunKgen, command: tuple[str, ...], code: int, how: str
):
    # The same link reached by an absolute path, or through `..` past a folder kgen
    # makes on the way: both were read as outside the current folder, and kgen wrote
    # the project where the link pointed.
    outside = tmp_path / "outside"
    outside.mkdir()
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "away").symlink_to(outside)
    (checkout / "j.yaml").write_text(
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: a}\n"
        "spec: {pytorchReplicaSpecs: {Master: {replicas: 1, template: {spec:"
        " {containers: [{name: pytorch, image: 'r.example.com/x:1'}]}}}}}\n"
    )
    folder = str(checkout / "away" / "project") if how == "absolute" else how
    refused = run_kgen(*command, folder, cwd=checkout)
    assert refused.code == code, refused
    assert "is a symbolic link" in refused.err
    assert os.listdir(outside) == []
    assert not (checkout / "new").exists()


def test_init_in_the_current_folder_says_no_cd(tmp_path: Path, run_kgen: RunKgen):
    made = run_kgen("init", cwd=tmp_path)
    assert made.err.splitlines()[-1] == (
        "next: kgen build && kgen validate, then commit"
    )


def test_init_v1_overlay_names_the_release_line_target_v1_means(
    tmp_path: Path, run_kgen: RunKgen
):
    # Target v1 is the training-operator 1.7 line, which Kubeflow 1.8 installed
    # (kubeflow-api.md §1), as this repository's own overlay says.
    run_kgen("init", cwd=tmp_path)
    written = (tmp_path / "overlays/v1.yaml").read_text().splitlines()
    ours = (REPO / "overlays/v1.yaml").read_text().splitlines()
    assert (
        written[1]
        == ours[1]
        == (
            "description: training-operator 1.7 and later (Kubeflow 1.8+);"
            " run fields under spec.runPolicy."
        )
    )


def test_init_ci_keeps_the_cache_between_runs(tmp_path: Path, run_kgen: RunKgen):
    run_kgen("init", cwd=tmp_path)
    steps = yaml.safe_load((tmp_path / ".github/workflows/kgen.yml").read_text())
    (cache,) = [
        s for s in steps["jobs"]["kgen"]["steps"] if "cache" in s.get("uses", "")
    ]
    assert cache["with"]["path"] == "~/.cache/kgen"
    assert cache["with"]["key"] == f"kgen-{__version__}-${{{{ github.sha }}}}"


def test_init_dev_cpu_takes_no_gpu(tmp_path: Path, run_kgen: RunKgen):
    run_kgen("init", cwd=tmp_path)
    cpu = tmp_path / "overlays/cpu.yaml"
    cpu.write_text(cpu.read_text().replace("  resources:\n    gpu: null\n", ""))
    failed = run_kgen("validate", cwd=tmp_path)
    assert failed.code == 1
    assert "environment dev-cpu asks for 3 GPUs at most, more than its quota of 0" in (
        failed.err
    )


def test_init_cpu_overlay_runs_one_process_per_pod(tmp_path: Path, run_kgen: RunKgen):
    # torchrun's auto is one process per CPU core on a CPU node (kubeflow-api.md §3.3).
    run_kgen("init", cwd=tmp_path)
    job = tmp_path / "jobs/mnist.yaml"
    job.write_text(job.read_text() + "nprocPerNode: auto\n")
    valid = run_kgen("validate", "--strict", cwd=tmp_path)
    assert (valid.code, valid.err) == (
        0,
        "kgen: 1 job in 2 environments (2 renders): valid\n",
    )
    assert run_kgen("build", cwd=tmp_path).code == 0
    dev = yaml.safe_load(
        (tmp_path / "manifests/dev-cpu/mnist.pytorchjob.yaml").read_text()
    )
    prod = yaml.safe_load(
        (tmp_path / "manifests/prod-gpu/mnist.pytorchjob.yaml").read_text()
    )
    assert (dev["spec"]["nprocPerNode"], prod["spec"]["nprocPerNode"]) == ("1", "auto")


def test_the_readme_job_validates_in_a_new_project(tmp_path: Path, run_kgen: RunKgen):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (job,) = re.findall(r"```yaml\n(# jobs/.*?)```", readme, re.S)
    name = job.splitlines()[0].removeprefix("# ")
    run_kgen("init", cwd=tmp_path)
    (tmp_path / name).write_text(job)
    valid = run_kgen("validate", "--strict", cwd=tmp_path)
    assert (valid.code, valid.err) == (
        0,
        "kgen: 2 jobs in 2 environments (4 renders): valid\n",
    )


def test_init_refuses_an_unwritable_place_before_building_schemas(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch
):
    # Building every schema is most of init's time; a place it cannot write to is
    # refused first (a pull request's CI step, or a typo, costs nothing), and the
    # folders made on the way to it are removed.
    def built(*_: object) -> None:
        raise AssertionError("schemas built for a place kgen cannot write to")

    # Where init looks it up (patching kgen.scaffold.project first would have init
    # imported with the fake, which undoing the second patch would then keep).
    monkeypatch.setattr("kgen.commands.init.schema_files", built)
    long = "n" * 300
    refused = run_kgen("init", f"new/{long}/project", cwd=tmp_path)
    assert (refused.code, refused.err) == (
        1,
        f"new/{long}: error: cannot write {shortened(f'new/{long}', 200)}:"
        " File name too long (io)\n"
        "    hint: choose a folder kgen can write to\n"
        "kgen: 1 error in 1 file\n",
    )
    (tmp_path / "afile").write_text("")
    refused = run_kgen("init", "afile/project", cwd=tmp_path)
    assert refused.code == 1, refused
    assert "afile is a file where a folder must be" in refused.err
    assert sorted(os.listdir(tmp_path)) == ["afile"]


def test_a_failed_init_removes_the_folder_it_made(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch
):
    # Ctrl-C after three files: what init made goes, folders and files.
    from kgen.output.generated import write_files

    def stopped(files: dict[Path, str], paths: list[Path]) -> None:
        write_files(files, paths[:3])
        raise KeyboardInterrupt

    monkeypatch.setattr("kgen.commands.init.write_files", stopped)
    assert run_kgen("init", "a/b/project", cwd=tmp_path).code == 130
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("moment", ["a folder made", "the probe file made"])
def test_an_init_stopped_as_it_tries_its_folder_removes_what_it_made(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch, moment: str
):
    # Ctrl-C (or SIGTERM, kgen.stopping) just after init made the first folder on the
    # way, or its probe file: that folder, the one below it and the probe go too.
    real_mkdir, real_open = os.mkdir, os.open

    def mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
        real_mkdir(path, *args, **kwargs)
        if moment == "a folder made" and Path(path) == Path("a"):
            raise KeyboardInterrupt

    def open_(path: Any, *args: Any, **kwargs: Any) -> int:
        fd = real_open(path, *args, **kwargs)
        if moment == "the probe file made" and Path(path).name.startswith(".kgen-init"):
            os.close(fd)
            raise KeyboardInterrupt
        return fd

    monkeypatch.setattr(os, "mkdir", mkdir)
    monkeypatch.setattr(os, "open", open_)
    assert run_kgen("init", "a/b", cwd=tmp_path).code == 130
    assert os.listdir(tmp_path) == []
