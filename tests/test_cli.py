"""The kgen command end to end: exit codes, drift, ownership of the output folder."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kgen import __version__
from tests.conftest import REPO, RunKgen

EXAMPLE = ["kgen.yaml", "jobs", "overlays", "resources", "crds"]


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A copy of the repo's own example project, without its output."""
    for name in EXAMPLE:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name)
        else:
            shutil.copy(source, tmp_path / name)
    return tmp_path


def test_version(run_kgen: RunKgen):
    result = run_kgen("--version")
    assert (result.code, result.out) == (0, f"kgen, version {__version__}\n")


def test_usage_errors_exit_2(run_kgen: RunKgen):
    assert run_kgen("frobnicate").code == 2
    assert run_kgen("build", "--no-such-flag").code == 2
    assert run_kgen("render", "mnist-ddp").code == 2  # --env is required


def test_build_then_check_is_clean_and_build_is_idempotent(
    example: Path, run_kgen: RunKgen
):
    first = run_kgen("build", cwd=example)
    assert first.code == 0, first
    assert (
        first.err
        == "kgen: 11 jobs in 11 environments (55 renders): 101 files written, 0 removed, 0 unchanged\n"
    )
    before = _snapshot(example / "manifests")
    again = run_kgen("build", cwd=example)
    assert (
        again.err
        == "kgen: 11 jobs in 11 environments (55 renders): 0 files written, 0 removed, 101 unchanged\n"
    )
    assert _snapshot(example / "manifests") == before
    check = run_kgen("build", "--check", cwd=example)
    assert (check.code, check.err) == (
        0,
        "kgen: manifests/ is up to date (101 files)\n",
    )


def test_check_reports_modified_missing_and_stale_files(
    example: Path, run_kgen: RunKgen
):
    run_kgen("build", cwd=example)
    out = example / "manifests"
    (out / "dev-cpu" / "tf-ps.tfjob.yaml").write_text("edited by hand\n")
    (out / "prod-gpu" / "mnist-ddp.pytorchjob.yaml").unlink()
    # A job removed from jobs/ leaves files kgen wrote: stale, a build removes them.
    (example / "jobs" / "nightly-eval.yaml").unlink()
    result = run_kgen("build", "--check", cwd=example)
    assert result.code == 1
    lines = result.err.splitlines()
    assert "modified: manifests/.kgen-index" in lines
    assert "modified: manifests/dev-cpu/tf-ps.tfjob.yaml" in lines
    assert "missing: manifests/prod-gpu/mnist-ddp.pytorchjob.yaml" in lines
    assert "stale: manifests/dev-cpu/nightly-eval.tfjob.yaml" in lines
    assert lines[-1] == (
        "kgen: the committed output is out of date; run `kgen build` and commit the result"
    )
    with_diff = run_kgen("build", "--check", "--diff", cwd=example)
    assert (
        "--- a/manifests/dev-cpu/tf-ps.tfjob.yaml\n+++ b/manifests/dev-cpu/tf-ps.tfjob.yaml\n"
        in with_diff.out
    )
    assert "-edited by hand\n" in with_diff.out


def test_a_file_kgen_did_not_write_is_not_stale_but_belongs_in_resources(
    example: Path, run_kgen: RunKgen
):
    """A build keeps a hand-added file and lists it nowhere, so calling it stale (a
    build would remove it) was untrue, and no build cleared it (attack F4)."""
    run_kgen("build", cwd=example)
    (example / "manifests" / "dev-cpu" / "quota.yaml").write_text("kind: x\n")
    check = run_kgen("build", "--check", cwd=example)
    assert (check.code, check.err) == (
        1,
        "unowned: manifests/dev-cpu/quota.yaml (kgen did not write it and no"
        " kustomization lists it: move it to resources/dev-cpu/, or resources/ for"
        " every environment)\n"
        "kgen: the output holds files kgen did not write; move them to resources/\n",
    )
    diff = run_kgen("diff", cwd=example)
    assert diff.out == ""
    assert diff.err.endswith(
        "kgen: a build would change nothing; 1 file kgen did not write would stay,"
        " listed in no kustomization (move them to resources/)\n"
    )
    build = run_kgen("build", cwd=example)
    assert build.code == 0
    assert (
        "manifests/dev-cpu/quota.yaml: warning: kgen did not write this file and lists"
        " it in no kustomization, so nothing applies it (unowned-output)\n"
        "    hint: move it to resources/dev-cpu/ (or resources/ for every environment);"
        " kgen then checks it, copies it into the output and lists it\n"
    ) in build.err


def test_spec_change_is_drift_until_rebuilt(example: Path, run_kgen: RunKgen):
    run_kgen("build", cwd=example)
    spec = example / "jobs" / "tf-ps.yaml"
    spec.write_text(spec.read_text().replace("replicas: 4", "replicas: 6"))
    check = run_kgen("build", "--check", cwd=example)
    assert check.code == 1
    assert check.err.count("modified: ") == 9, "8 environments and the index"
    assert run_kgen("build", cwd=example).code == 0
    assert run_kgen("build", "--check", cwd=example).code == 0


def test_removed_job_files_are_pruned(example: Path, run_kgen: RunKgen):
    run_kgen("build", cwd=example)
    (example / "jobs" / "tf-ps.yaml").unlink()
    result = run_kgen("build", cwd=example)
    assert result.code == 0
    assert "8 removed" in result.err
    assert not list((example / "manifests").rglob("tf-ps.*"))
    assert (
        "tf-ps"
        not in (example / "manifests" / "dev-cpu" / "kustomization.yaml").read_text()
    )


def test_a_file_kgen_did_not_write_is_never_overwritten(
    example: Path, run_kgen: RunKgen
):
    foreign = example / "manifests" / "dev-cpu" / "tf-ps.tfjob.yaml"
    foreign.parent.mkdir(parents=True)
    foreign.write_text("# hand-written\n")
    result = run_kgen("build", cwd=example)
    assert result.code == 1
    assert result.err.startswith(
        "manifests/dev-cpu/tf-ps.tfjob.yaml: error: refusing to overwrite"
        " manifests/dev-cpu/tf-ps.tfjob.yaml: kgen did not write it (foreign-file)\n"
    )
    assert foreign.read_text() == "# hand-written\n"
    assert not (example / "manifests" / "prod-gpu").exists(), (
        "nothing is written when refusing"
    )


def test_invalid_input_writes_nothing(example: Path, run_kgen: RunKgen):
    (example / "jobs" / "broken.yaml").write_text("framework: pytorch\nimage: [\n")
    result = run_kgen("build", cwd=example)
    assert result.code == 1
    assert result.err.startswith("jobs/broken.yaml:3:1: error:")
    assert not (example / "manifests").exists()


def test_env_option_limits_validation(example: Path, run_kgen: RunKgen):
    result = run_kgen("validate", "--env", "dev-cpu", "-e", "prod-gpu", cwd=example)
    assert (result.code, result.err) == (
        0,
        "kgen: 11 jobs in 2 environments (21 renders): valid\n",
    )


def test_render_prints_one_job(example: Path, run_kgen: RunKgen):
    result = run_kgen("render", "tf-ps", "--env", "kf06-cpu", cwd=example)
    assert result.code == 0, result
    expected = (REPO / "manifests" / "kf06-cpu" / "tf-ps.tfjob.yaml").read_text()
    assert result.out == expected[expected.index("---") :]
    unknown = run_kgen("render", "nope", "--env", "dev-cpu", cwd=example)
    assert unknown.code == 2
    assert (
        unknown.err
        == "kgen: error: unknown job 'nope' (jobs: gpt-deepspeed, horovod-resnet, jax-mnist, llm-elastic, mnist-ddp, nightly-eval, resnet-3node, tf-mwms, tf-ps, vit-pretrain, xgboost-iris)\n"
    )


def test_internal_errors_exit_3_with_one_line(
    example: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    def boom(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("synthetic failure")

    monkeypatch.setattr("kgen.commands.outcome.run", boom)
    result = run_kgen("validate", cwd=example)
    assert result.code == 3
    assert (
        result.err
        == "kgen: internal error: RuntimeError: synthetic failure (please report this as a bug)\n"
    )


def test_parsable_format(example: Path, run_kgen: RunKgen):
    (example / "jobs" / "tf-ps.yaml").write_text(
        "framework: tensorflow\nimage: x:1\nroles: {workers: {replicas: 1}}\n"
    )
    result = run_kgen("validate", "--format", "parsable", cwd=example)
    assert (
        result.out
        == "jobs/tf-ps.yaml:3:9: [error] unknown key 'workers' (unknown-key)\n"
    )
    assert result.err == ""


def test_installed_command_and_module_run(tmp_path: Path):
    env = {**os.environ, "NO_COLOR": "1"}
    for command in (
        [str(Path(sys.executable).parent / "kgen")],
        [sys.executable, "-m", "kgen"],
    ):
        done = subprocess.run(
            [*command, "validate", "-C", str(REPO)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stderr == "kgen: 11 jobs in 11 environments (55 renders): valid\n"


def test_repo_output_is_current(run_kgen: RunKgen):
    # The repo is its own GitOps example: its committed manifests are the golden files.
    result = run_kgen("build", "--check", "--diff", cwd=REPO)
    assert result.code == 0, (
        f"{result}\nrun `make golden` (or `kgen build`) and review the diff"
    )


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


def test_warnings_alone_pass_unless_strict(example: Path, run_kgen: RunKgen):
    spec = example / "jobs" / "tf-ps.yaml"
    spec.write_text(spec.read_text().replace("tensorflow:2.15.0", "tensorflow:latest"))
    relaxed = run_kgen("validate", "--env", "dev-cpu", cwd=example)
    assert relaxed.code == 0, relaxed
    assert relaxed.err.startswith(
        "jobs/tf-ps.yaml:8:8: warning: image docker.io/tensorflow/tensorflow:latest is tagged latest"
    )
    assert relaxed.err.endswith(
        "kgen: 1 warning in 1 file\nkgen: 10 jobs in 1 environment (10 renders): valid\n"
    )
    strict = run_kgen("validate", "--env", "dev-cpu", "--strict", cwd=example)
    assert strict.code == 1
    assert run_kgen("build", cwd=example).code == 0, "warnings do not stop a build"


def test_validate_paths_checks_only_what_they_touch(example: Path, run_kgen: RunKgen):
    (example / "jobs" / "broken.yaml").write_text("framework: pytorch\nimage: [\n")
    one_job = run_kgen("validate", "jobs/tf-ps.yaml", cwd=example)
    assert (one_job.code, one_job.err) == (
        0,
        "kgen: 1 job in 8 environments (8 renders): valid\n",
    )
    overlay = run_kgen("validate", "overlays/v1beta2.yaml", cwd=example)
    assert (overlay.code, overlay.err) == (
        0,
        "kgen: 4 jobs in 2 environments (8 renders): valid\n",
    )
    named = run_kgen("validate", "jobs/broken.yaml", "jobs/tf-ps.yaml", cwd=example)
    assert named.code == 1
    assert named.err.startswith(
        "jobs/broken.yaml:3:1: error: did not find expected node content (yaml-syntax)\n"
    )
    everything = run_kgen("validate", "kgen.yaml", cwd=example)
    assert everything.code == 1, "kgen.yaml brings in every job, the broken one too"
    (example / "README.md").write_text("# ML jobs\n")  # a file that is no kgen input
    unrelated = run_kgen("validate", "README.md", cwd=example)
    assert (unrelated.code, unrelated.err) == (
        0,
        "kgen: none of the given paths is a job spec, overlay or kgen.yaml\n",
    )


def test_validate_paths_resolve_from_another_folder(
    example: Path, run_kgen: RunKgen, tmp_path: Path
):
    result = run_kgen(
        "validate",
        "-C",
        str(example),
        str(example / "jobs" / "tf-ps.yaml"),
        cwd=example.parent,
    )
    assert (result.code, result.err) == (
        0,
        "kgen: 1 job in 8 environments (8 renders): valid\n",
    )


def test_explain_shows_where_values_come_from(example: Path, run_kgen: RunKgen):
    result = run_kgen("explain", "tf-ps", "roles.ps", "--env", "kf06-cpu", cwd=example)
    assert result.code == 0, result
    assert result.out == (
        "tf-ps in environment kf06-cpu: kubeflow.org/v1beta2 (kubeflow.org/v1beta2, Kubeflow 0.5 and 0.6)\n"
        "overlays applied: cpu, v1beta2\n"
        "\n"
        "values:\n"
        "  roles.ps.replicas: 2                      jobs/tf-ps.yaml:22:15\n"
        "  roles.ps.resources.requests.cpu: 1        jobs/tf-ps.yaml:25:23\n"
        "  roles.ps.resources.requests.memory: 16Gi  jobs/tf-ps.yaml:25:36\n"
        "  roles.ps.resources.limits.cpu: 2          jobs/tf-ps.yaml:26:21\n"
        "  roles.ps.resources.limits.memory: 16Gi    jobs/tf-ps.yaml:26:34\n"
    )


def test_explain_records_overrides_and_the_operator_env(
    example: Path, run_kgen: RunKgen
):
    (example / "overlays" / "prod.yaml").write_text(
        (example / "overlays" / "prod.yaml").read_text()
        + "  roles:\n    worker: {replicas: 5}\n"
    )
    result = run_kgen("explain", "mnist-ddp", "--env", "prod-gpu", cwd=example)
    assert result.code == 0, result
    assert "  roles.worker.replicas: 5" in result.out
    line = next(
        row
        for row in result.out.splitlines()
        if row.startswith("  roles.worker.replicas")
    )
    assert line.endswith(
        "overlays/prod.yaml:8:24 (overrides jobs/mnist-ddp.yaml:34:22)"
    )
    assert "  mnist-ddp-worker-4\n" in result.out
    assert "    WORLD_SIZE=6\n" in result.out
    unknown = run_kgen(
        "explain", "mnist-ddp", "nothing.here", "--env", "prod-gpu", cwd=example
    )
    assert (unknown.code, unknown.err) == (
        2,
        "kgen: error: mnist-ddp has no field nothing.here in prod-gpu\n",
    )
    slip = run_kgen(
        "explain", "mnist-ddp", "resources.gpus", "--env", "prod-gpu", cwd=example
    )
    assert (slip.code, slip.err) == (
        2,
        "kgen: error: mnist-ddp has no field resources.gpus in prod-gpu;"
        " did you mean resources.gpu?\n",
    )
    skipped = run_kgen("explain", "llm-elastic", "--env", "kf06-cpu", cwd=example)
    assert skipped.code == 2


def test_plan_lists_jobs_and_totals(run_kgen: RunKgen):
    result = run_kgen("plan", "--env", "kf06-cpu", cwd=REPO)
    assert result.code == 0, result
    assert result.out == (
        "ENVIRONMENT  JOB           KIND        TARGET   ROLES                              PODS  GPUS  CPU  MEMORY\n"
        "kf06-cpu     mnist-ddp     PyTorchJob  v1beta2  master 1, worker 3, tensorboard 1  5     0     4    8Gi\n"
        "kf06-cpu     resnet-3node  PyTorchJob  v1beta2  master 1, worker 2                 3     0     24   96Gi\n"
        "kf06-cpu     tf-mwms       TFJob       v1beta2  chief 1, worker 2                  3     0     12   48Gi\n"
        "kf06-cpu     tf-ps         TFJob       v1beta2  worker 4, ps 2                     6     0     10   48Gi\n"
        "kf06-cpu     (total)                                                               17    0     50   200Gi\n"
    )
    # vit-pretrain's 4 pods each request 4.1 CPU and 16.125Gi: its sidecar beside the
    # trainer (its init container needs less).
    assert run_kgen("list", "--env", "prod-gpu", cwd=REPO).out.splitlines()[-1].split()[
        -4:
    ] == ["40", "26", "173.4", "998.5Gi"]


def test_diff_shows_what_a_build_would_change(example: Path, run_kgen: RunKgen):
    run_kgen("build", cwd=example)
    clean = run_kgen("diff", cwd=example)
    assert (clean.code, clean.out, clean.err) == (
        0,
        "",
        "kgen: a build would change nothing\n",
    )
    spec = example / "jobs" / "tf-ps.yaml"
    spec.write_text(spec.read_text().replace("    replicas: 4\n", "    replicas: 6\n"))
    result = run_kgen("diff", "--env", "kf06-cpu", cwd=example)
    assert result.code == 0
    # The job's index line carries its new fingerprint; no other environment shows.
    index, job = result.out.split("--- a/manifests/kf06-cpu/tf-ps.tfjob.yaml\n")
    assert index.startswith("--- a/manifests/.kgen-index\n")
    assert "\n-manifests/kf06-cpu/tf-ps.tfjob.yaml spec-" in index
    assert "kf06-gpu" not in index.replace(" manifests/kf06-gpu/", "")
    assert job.startswith("+++ b/manifests/kf06-cpu/tf-ps.tfjob.yaml\n")
    assert "-      replicas: 4\n+      replicas: 6\n" in job
    assert result.err == "kgen: a build would modify 2, add 0 and remove 0 files\n"
    assert run_kgen("diff", "--exit-code", cwd=example).code == 1


def test_content_hash_names_turn_a_changed_spec_into_a_new_job(
    tmp_path: Path, run_kgen: RunKgen
):
    case = REPO / "tests" / "cases" / "positive" / "run-names"
    shutil.copytree(case, tmp_path / "p", ignore=shutil.ignore_patterns("expected"))
    root = tmp_path / "p"
    assert run_kgen("build", cwd=root).code == 0
    before = sorted(p.name for p in (root / "manifests" / "dev").iterdir())
    spec = root / "jobs" / "sweep.yaml"
    spec.write_text(spec.read_text().replace('"0.01"', '"0.02"'))
    again = run_kgen("build", cwd=root)
    assert again.code == 0 and "job-changed-in-place" not in again.err
    after = sorted(p.name for p in (root / "manifests" / "dev").iterdir())
    assert [n for n in before if n.startswith("sweep-")] != [
        n for n in after if n.startswith("sweep-")
    ]
    assert len([n for n in after if n.startswith("sweep-")]) == 1, (
        "the old run's file is pruned"
    )


def test_a_job_changed_in_place_is_a_warning_with_a_way_out(
    example: Path, run_kgen: RunKgen
):
    run_kgen("build", cwd=example)
    spec = example / "jobs" / "tf-ps.yaml"
    spec.write_text(spec.read_text().replace("    replicas: 4\n", "    replicas: 6\n"))
    result = run_kgen("validate", "jobs/tf-ps.yaml", cwd=example)
    assert result.code == 0
    assert result.err.startswith(
        "jobs/tf-ps.yaml:1:1: warning: tf-ps changes in place: a running job keeps its pods"
        " and a finished job never runs again (job-changed-in-place)\n"
    )
    spec.write_text(spec.read_text() + "runId: r2\n")
    renamed = run_kgen("validate", "jobs/tf-ps.yaml", cwd=example)
    assert "job-changed-in-place" not in renamed.err


def test_a_change_in_place_names_the_environments_it_is_in(
    example: Path, run_kgen: RunKgen
):
    """A change an overlay makes reaches only that overlay's environments: the warning
    named none, so a reviewer could not tell which clusters' jobs it concerns."""
    run_kgen("build", cwd=example)
    prod = example / "overlays" / "prod.yaml"
    prod.write_text(prod.read_text().replace("IfNotPresent", "Always"))
    result = run_kgen("validate", "jobs/tf-ps.yaml", cwd=example)
    assert result.code == 0
    assert result.err.splitlines()[:3] == [
        "jobs/tf-ps.yaml:1:1: warning: tf-ps changes in place: a running job keeps its"
        " pods and a finished job never runs again (job-changed-in-place)",
        "    hint: set a new runId (or kgen.yaml jobNames: content-hash) to start a new"
        " job; or lint.ignore it if the job has not run",
        "    in environments prod-gpu, to16-gpu",
    ]


def test_only_the_job_spec_counts_as_a_change_in_place(
    example: Path, run_kgen: RunKgen
):
    run_kgen("build", cwd=example)
    index = example / "manifests" / ".kgen-index"
    lines = index.read_text().splitlines()
    marks = [line for line in lines if not line.startswith("#") and " " in line]
    assert marks and all(" spec-yaml-sha256:" in line for line in marks)
    spec = example / "jobs" / "tf-ps.yaml"
    original = spec.read_text()
    # A new label changes the job's metadata, not what its pods run.
    spec.write_text(original.replace("labels:\n", "labels:\n  team: vision\n"))
    relabelled = run_kgen("validate", "jobs/tf-ps.yaml", cwd=example)
    assert relabelled.code == 0 and "job-changed-in-place" not in relabelled.err
    spec.write_text(original.replace("    replicas: 4\n", "    replicas: 6\n"))
    changed = run_kgen("validate", "jobs/tf-ps.yaml", cwd=example)
    assert "job-changed-in-place" in changed.err


def test_marks_of_an_older_scheme_are_not_read_as_changes(
    example: Path, run_kgen: RunKgen
):
    run_kgen("build", cwd=example)
    index = example / "manifests" / ".kgen-index"
    # What kgen 0.1 wrote: a digest of the spec as canonical JSON.
    old = re.sub(
        r"spec-yaml-sha256:[0-9a-f]{16}",
        "spec-sha256:0123456789abcdef",
        index.read_text(),
    )
    index.write_text(old)
    spec = example / "jobs" / "tf-ps.yaml"
    spec.write_text(spec.read_text().replace("    replicas: 4\n", "    replicas: 6\n"))
    result = run_kgen("validate", "jobs/tf-ps.yaml", cwd=example)
    assert result.code == 0 and "job-changed-in-place" not in result.err
    assert run_kgen("build", cwd=example).code == 0
    assert "spec-sha256:" not in index.read_text()


@pytest.mark.parametrize("command", [["build"], ["build", "--check"], ["validate"]])
def test_a_damaged_index_is_refused_with_a_way_out(
    example: Path, run_kgen: RunKgen, command: list[str]
):
    run_kgen("build", cwd=example)
    index = example / "manifests" / ".kgen-index"
    index.write_bytes(b"\xff\xfe" + index.read_bytes())
    before = {
        p: p.read_bytes() for p in (example / "manifests").rglob("*") if p.is_file()
    }
    spec = example / "jobs" / "tf-ps.yaml"
    spec.write_text(spec.read_text().replace("    replicas: 4\n", "    replicas: 6\n"))
    result = run_kgen(*command, cwd=example)
    assert result.code == 1
    assert result.err == (
        "manifests/.kgen-index: error: kgen's index of the files it wrote is damaged;"
        " it is not UTF-8 text: invalid start byte (io)\n"
        "    hint: restore it from git (git checkout -- manifests/.kgen-index),"
        " then run kgen again\n"
        "kgen: 1 error in 1 file\n"
    )
    after = {
        p: p.read_bytes() for p in (example / "manifests").rglob("*") if p.is_file()
    }
    assert after == before, "nothing is written"


def test_inputs_that_link_out_of_the_project_are_refused(
    example: Path, run_kgen: RunKgen, tmp_path_factory: pytest.TempPathFactory
):
    secret = tmp_path_factory.mktemp("outside") / "elsewhere.yaml"
    secret.write_text(
        "framework: pytorch\nimage: x:1\nroles: {master: {replicas: 1}}\n"
    )
    (example / "jobs" / "sneaky.yaml").symlink_to(secret)
    (example / "overlays" / "cpu.yaml").unlink()
    (example / "overlays" / "cpu.yaml").symlink_to(secret)
    result = run_kgen("validate", cwd=example)
    assert result.code == 1
    lines = result.err.splitlines()
    assert (
        "jobs/sneaky.yaml: error: jobs/sneaky.yaml links to a file outside the project; kgen reads only files inside it (io)"
        in lines
    )
    assert (
        "overlays/cpu.yaml: error: overlays/cpu.yaml links to a file outside the project; kgen reads only files inside it (io)"
        in lines
    )


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_is_answered_before_the_command_line_loads(
    flag: str, run_kgen: RunKgen
):
    # `python -m kgen --version` and the `kgen` script answer without importing click;
    # the answer must be the one click's version option gives.
    script = (
        "import runpy, sys\n"
        f"sys.argv = ['kgen', '{flag}']\n"
        "try:\n    runpy.run_module('kgen', run_name='__main__')\n"
        "except SystemExit as exc:\n    code = exc.code\n"
        "print(code, 'click' in sys.modules)\n"
    )
    fast = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True
    )
    clicked = run_kgen(flag)
    assert (clicked.code, clicked.out) == (0, f"kgen, version {__version__}\n")
    assert (fast.stdout, fast.stderr) == (clicked.out + "0 False\n", "")


def test_plan_and_list_each_name_the_other_in_their_help(run_kgen: RunKgen):
    plan = run_kgen("plan", "--help")
    listed = run_kgen("list", "--help")
    assert (plan.code, listed.code) == (0, 0)
    assert "Also `kgen list`." in plan.out and "kgen plan`" not in plan.out
    assert "Also `kgen plan`." in listed.out and "kgen list`" not in listed.out


def test_explain_without_env_takes_the_one_environment_or_names_them(
    example: Path, run_kgen: RunKgen
):
    """`--env` was required even for a job in one environment, and its absence was
    click's `Missing option '--env'`, which named none of the job's environments."""
    one = run_kgen("explain", "jax-mnist", cwd=example)
    assert one.code == 0, one.err
    assert one.out.startswith("jax-mnist in environment prod-gpu: kubeflow.org/v1 ")
    many = run_kgen("explain", "xgboost-iris", cwd=example)
    assert (many.code, many.out, many.err) == (
        2,
        "",
        "kgen: error: xgboost-iris renders in dev-cpu, prod-gpu: give the one to"
        " explain with --env\n",
    )
