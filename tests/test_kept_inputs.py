"""kgen.yaml and the overlays as validated before (kgen.load.kept): a hit gives what
parsing and validating the same bytes gives, and anything else found in the cache
folder, or any change to a file, is parsed and validated again."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

import kgen.load.kept as kept
from kgen.load.kept import NAME
from kgen.load.project import Project, load_project
from kgen.pipeline.cache import cache_folder
from kgen.pipeline.code import code_digest
from tests.conftest import RunKgen, copy_example


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_example(tmp_path / "project")


def loaded(root: Path) -> Project:
    found, problems = load_project(root)
    assert found is not None, problems
    return found


def kept_file(root: Path) -> Path:
    folder = cache_folder(root)
    assert folder is not None
    return folder / NAME


def no_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("validated again")

    monkeypatch.setattr(kept, "validate_model", refuse)


def test_a_second_load_gives_what_the_first_validated(
    project: Path, monkeypatch: pytest.MonkeyPatch
):
    first = loaded(project)
    assert kept_file(project).is_file()
    no_validation(monkeypatch)  # kgen.yaml and every overlay come from the file
    second = loaded(project)
    assert (second.spec, second.doc) == (first.spec, first.doc)
    assert second.overlays == first.overlays
    assert second.inputs == first.inputs  # the same bytes were read
    assert len(first.overlays) > 10


def test_a_changed_overlay_is_validated_again_and_its_problem_reported(
    project: Path, run_kgen: RunKgen
):
    assert run_kgen("validate", "-C", str(project)).code == 0
    overlay = project / "overlays" / "gpu.yaml"
    overlay.write_text(overlay.read_text() + "surprise: 1\n")
    cached = run_kgen("validate", "-C", str(project))
    fresh = run_kgen("--no-cache", "validate", "-C", str(project))
    assert cached.code == fresh.code == 1
    assert cached.err == fresh.err
    assert "overlays/gpu.yaml:" in cached.err


def test_an_overlay_with_a_problem_is_not_kept(project: Path, run_kgen: RunKgen):
    overlay = project / "overlays" / "gpu.yaml"
    text = overlay.read_text().replace("patch:\n", "patch:\n  framework: mpi\n", 1)
    overlay.write_text(text)
    runs = [run_kgen("validate", "-C", str(project)) for _ in range(2)]
    assert [r.code for r in runs] == [1, 1]
    assert runs[0].err == runs[1].err
    assert (
        "overlays/gpu.yaml:7:3: error: an overlay cannot change a job's framework"
        in (runs[1].err)
    )
    table = pickle.loads(kept_file(project).read_bytes())[1]
    assert "overlays/gpu.yaml" not in table
    assert "kgen.yaml" in table


def test_what_another_kgen_kept_is_not_read(
    project: Path, monkeypatch: pytest.MonkeyPatch
):
    first = loaded(project)
    path = kept_file(project)
    _, table = pickle.loads(path.read_bytes())
    path.write_bytes(pickle.dumps(("another kgen", table)))
    calls: list[object] = []
    from kgen.spec.validate import validate_model as real

    def counted(*args: object) -> object:
        calls.append(args[0])
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(kept, "validate_model", counted)
    assert loaded(project).spec == first.spec
    assert len(calls) == 1 + len(first.overlays)


class _Gadget:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch pwned",))


@pytest.mark.parametrize(
    "content",
    [
        b"not a pickle",
        b"",
        pickle.dumps((code_digest(), {"kgen.yaml": _Gadget()})),
        pickle.dumps((code_digest(), {"kgen.yaml": ("digest", "doc", "spec")})),
        pickle.dumps((code_digest(), ["not", "a", "table"])),
    ],
    ids=["garbage", "empty", "gadget", "wrong-shape", "not-a-table"],
)
def test_a_damaged_or_planted_file_is_ignored(
    project: Path, content: bytes, monkeypatch: pytest.MonkeyPatch
):
    expected = loaded(project)
    kept_file(project).write_bytes(content)
    monkeypatch.chdir(project)
    again = loaded(project)
    assert (again.spec, again.overlays) == (expected.spec, expected.overlays)
    assert not (project / "pwned").exists()


def test_a_folder_or_a_pipe_in_its_place_is_ignored(project: Path):
    expected = loaded(project)
    path = kept_file(project)
    path.unlink()
    os.mkfifo(path)  # opened without blocking, and refused as not a regular file
    assert loaded(project).spec == expected.spec
    path.unlink()
    path.mkdir()
    assert loaded(project).spec == expected.spec


def test_nothing_is_kept_without_the_cache(
    project: Path, monkeypatch: pytest.MonkeyPatch
):
    found, _ = load_project(project, use_cache=False)
    assert found is not None
    assert not kept_file(project).exists()


def test_what_would_not_be_read_back_is_not_written(
    project: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(kept, "MAX_BYTES", 100)
    loaded(project)
    assert not kept_file(project).exists()
