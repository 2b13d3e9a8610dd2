"""`kgen import` reads nothing outside the current folder and writes all or nothing
(issue 14: F2, F12, F14)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kgen.errors import KgenError
from kgen.importer.jobs import import_files
from kgen.importer.project import write_project
from kgen.importer.read import read_manifests
from tests.conftest import RunKgen
from tests.hostile.case import OUTSIDE_SECRET, materialise
from tests.hostile.cases_attack import (
    IMPORT_READ_CASES,
    IMPORT_SHAPE_CASES,
    IMPORT_WRITING_CASES,
    IMPORTED,
)


def _all_bytes(folder: Path) -> bytes:
    files = [p for p in sorted(folder.rglob("*")) if not p.is_symlink()]
    return b"".join(p.read_bytes() for p in files if p.is_file())


READING = {**IMPORT_READ_CASES, **IMPORT_WRITING_CASES}


@pytest.mark.parametrize("name", sorted(READING))
def test_import_never_copies_an_outside_file(
    name: str, tmp_path: Path, run_kgen: RunKgen
) -> None:
    case = READING[name]
    root = materialise(case, tmp_path / "project")
    result = run_kgen(*case.args, cwd=root)
    assert result.code == case.expected_exit, result
    assert OUTSIDE_SECRET.strip() not in result.out + result.err
    assert OUTSIDE_SECRET.strip().encode() not in _all_bytes(root)
    if name in IMPORT_READ_CASES and result.code:
        assert not (root / "imported").exists()


def test_an_outside_path_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    os.mkfifo(tmp_path / "fifo.yaml")  # opening it for reading would block
    docs, problems = read_manifests([Path("../fifo.yaml")], cwd=project)
    assert docs == []
    assert [p.message for p in problems] == [
        "../fifo.yaml is outside the current folder; kgen import reads only files"
        " inside it"
    ]


def test_a_link_inside_the_current_folder_is_read(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    case = IMPORT_WRITING_CASES["import-link-that-stays-inside-is-read"]
    root = materialise(case, tmp_path / "project")
    result = run_kgen(*case.args, cwd=root)
    assert (result.code, result.out, result.err) == (
        0,
        "",
        "kgen: imported 1 job into imported/ (3 files); run `kgen build -C imported`\n",
    )
    assert "name: train" in (root / "imported/jobs/train.yaml").read_text()


def test_a_bad_job_among_good_ones_is_reported_and_nothing_is_written(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    case = IMPORT_WRITING_CASES["import-one-bad-job-among-good-ones"]
    root = materialise(case, tmp_path / "project")
    result = run_kgen(*case.args, cwd=root)
    assert result.code == 1
    assert result.err.startswith(
        "in/job.yaml:15:18: error: cannot import this PyTorchJob: '..' is not a valid"
        " name: "
    )
    assert result.err.endswith(
        "kgen: 1 error in 1 file\n"
        "kgen: nothing written to imported/: an import with errors writes no project\n"
    )
    assert not (root / "imported").exists()


def test_an_error_in_a_job_it_imports_writes_nothing(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    # The job itself is imported, without its image: a project that exits 1 is none.
    (tmp_path / "in").mkdir()
    (tmp_path / "in/a.yaml").write_text(
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: a}\n"
        "spec: {pytorchReplicaSpecs: {Master: {replicas: 1, template: {spec:"
        " {containers: []}}}}}\n"
    )
    result = run_kgen("import", "in/a.yaml", "--out", "imp", cwd=tmp_path)
    assert (result.code, result.out, result.err) == (
        1,
        "",
        "in/a.yaml:4:70: error: cannot import Master without a container named"
        " pytorch: its operator rejects the job (training-operator requires a"
        " container named pytorch in every replica type) (import-unsupported)\n"
        "    hint: name the role's main container pytorch, then import again\n"
        "kgen: 1 error in 1 file\n"
        "kgen: nothing written to imp/: an import with errors writes no project\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


@pytest.mark.parametrize("name", sorted(IMPORT_SHAPE_CASES))
def test_a_refused_job_is_not_written(
    name: str, tmp_path: Path, run_kgen: RunKgen
) -> None:
    case = IMPORT_SHAPE_CASES[name]
    root = materialise(case, tmp_path / "project")
    result = run_kgen(*case.args, cwd=root)
    assert result.code == 1, result
    written = (
        sorted(
            p.relative_to(root / "imported").as_posix()
            for p in (root / "imported").rglob("*")
            if p.is_file()
        )
        if (root / "imported").exists()
        else []
    )
    assert written == []


def test_a_failed_write_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in/job.yaml").write_text(IMPORTED)
    docs_result = import_files([Path("in/job.yaml")], cwd=tmp_path)
    assert not docs_result.problems
    import kgen.output.import_folder as generated

    real = generated.write_inside
    calls: list[str] = []

    def failing(out: Path, path: str, data: bytes) -> None:
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device", path)
        real(out, path, data)

    monkeypatch.setattr(generated, "write_inside", failing)
    out = tmp_path / "deep" / "imported"
    with pytest.raises(KgenError) as raised:
        write_project(docs_result, out)
    assert [p.message for p in raised.value.problems] == [
        "cannot write the imported project: No space left on device; nothing was"
        " written"
    ]
    assert len(calls) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]
