"""The render cache is never in the project, where a pull request could plant entries a
run would take as its own: a KGEN_CACHE_DIR that resolves inside the project (given
absolute or relative) is not used, and said so; a relative XDG_CACHE_HOME is ignored,
as the XDG Base Directory specification says."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgen.pipeline.cache_place import cache_folder
from tests.conftest import RunKgen

NOTE = (
    "kgen: note: not using the cache: {place} is inside the project, where a pull"
    " request could plant entries; set KGEN_CACHE_DIR to a folder outside it\n"
)
BUILT = "kgen: 1 job in 2 environments (2 renders): 5 files written, 0 removed, 0 unchanged\n"


@pytest.fixture
def project(tmp_path: Path, run_kgen: RunKgen) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    assert run_kgen("init", cwd=root).code == 0
    return root


@pytest.mark.parametrize("given", ["absolute", ".kc", "jobs/../.kc"])
def test_a_cache_folder_inside_the_project_is_not_used(
    given: str, project: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    place = project / ".kc"
    monkeypatch.setenv("KGEN_CACHE_DIR", str(place) if given == "absolute" else given)
    monkeypatch.chdir(project)
    assert cache_folder(project) is None
    result = run_kgen("build", cwd=project)
    assert (result.code, result.err) == (0, NOTE.format(place=place) + BUILT)
    assert not place.exists()


def test_the_project_itself_as_the_cache_folder(
    project: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("KGEN_CACHE_DIR", str(project))
    before = sorted(p.name for p in project.iterdir())
    result = run_kgen("validate", cwd=project)
    assert result.code == 0
    assert result.err.startswith(NOTE.format(place=project))
    assert sorted(p.name for p in project.iterdir()) == before


def test_a_relative_xdg_cache_home_is_ignored(
    project: Path, tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    home = tmp_path / "home"
    monkeypatch.delenv("KGEN_CACHE_DIR")
    monkeypatch.delenv("KGEN_NO_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", "xdg")
    monkeypatch.chdir(project)
    folder = cache_folder(project)
    assert folder is not None and folder.parent == home / ".cache/kgen"
    result = run_kgen("build", cwd=project)
    assert (result.code, result.err) == (0, BUILT)
    assert not (project / "xdg").exists()
    assert folder.is_dir()


def test_a_cache_folder_beside_the_project_is_used(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "project-cache"))
    folder = cache_folder(project)
    assert folder is not None and folder.parent == tmp_path / "project-cache"


@pytest.mark.parametrize("to", ["jobs", "elsewhere"])
def test_a_project_cache_folder_that_is_a_link_is_not_used(
    to: str,
    project: Path,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
):
    """A CI cache is restored as it was saved, links and all: the project's own folder
    in it, made a link (into the project, or anywhere), had kgen read its entries
    from there and write its cache files there."""
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "project-cache"))
    folder = cache_folder(project)
    assert folder is not None
    target = project / "jobs" if to == "jobs" else tmp_path / "elsewhere"
    target.mkdir(exist_ok=True)
    before = sorted(p.name for p in target.iterdir())
    folder.parent.mkdir()
    folder.symlink_to(target)
    assert cache_folder(project) is None
    result = run_kgen("build", cwd=project)
    assert (result.code, result.err) == (0, BUILT)
    assert sorted(p.name for p in target.iterdir()) == before
