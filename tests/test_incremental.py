"""The incremental path (kgen.pipeline.cache) never answers differently from a cold run.

Each case builds the repo's example project, changes one input, and builds again: once
with the cache (warm from the first build), once without. Trees, messages and exit codes
must be identical, and the warm build must have re-rendered only what the change touched.
"""

from __future__ import annotations

import pickle
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from kgen.pipeline import cache as kgen_cache
from kgen.pipeline import run as pipeline
from tests.conftest import Result, RunKgen, copy_example, files_below


def _copy(dest: Path) -> Path:
    return copy_example(dest)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


EDITS: dict[str, tuple[Callable[[Path], object], int | None]] = {
    # name: (the change, how many renders a warm build redoes; None: all of them)
    "nothing": (lambda root: None, 0),
    "a job's image": (
        lambda root: _edit(
            root / "jobs/mnist-ddp.yaml", "pytorch-dist-mnist:v1.0", "mnist:v2.0"
        ),
        10,
    ),
    "a comment in a job": (
        lambda root: _edit(root / "jobs/tf-ps.yaml", "\n", "\n# reviewed\n"),
        8,
    ),
    "a new job": (
        lambda root: shutil.copy(
            root / "jobs/nightly-eval.yaml", root / "jobs/nightly-eval-2.yaml"
        ),
        3,
    ),
    "a removed job": (lambda root: (root / "jobs/tf-mwms.yaml").unlink(), 0),
    "an overlay": (
        lambda root: _edit(
            root / "overlays/dev.yaml", "backoffLimit: 1", "backoffLimit: 2"
        ),
        None,
    ),
    "kgen.yaml": (
        lambda root: _edit(root / "kgen.yaml", "namespace: ml-dev", "namespace: d"),
        None,
    ),
    # resnet-3node's hostIPC, allowed by the policy, becomes forbidden in prod.
    "kgen.yaml's policy": (
        lambda root: _edit(
            root / "kgen.yaml", "    host-ipc: resnet", "    host-pid: r"
        ),
        None,
    ),
    "a broken job": (
        lambda root: _edit(
            root / "jobs/mnist-ddp.yaml", "worker: {replicas: 3}", "worker: {x: 3}"
        ),
        10,
    ),
}


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    rendered: list[str] = []
    real = pipeline.render_one

    def render_one(job, env, overlays, context):
        rendered.append(f"{env.name}/{job.name}")
        return real(job, env, overlays, context)

    monkeypatch.setattr(pipeline, "render_one", render_one)
    return rendered


def _build_twice(
    root: Path,
    edit: Callable[[Path], object],
    run_kgen: RunKgen,
    *args: str,
) -> Result:
    assert run_kgen("build", "-C", str(root)).code == 0
    edit(root)
    return run_kgen(*args, "-C", str(root))


@pytest.mark.parametrize("name", list(EDITS))
def test_warm_build_equals_cold_build(
    name: str, tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    edit, expected_renders = EDITS[name]
    rendered = _counting(monkeypatch)
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    cold_root = _copy(tmp_path / "cold")
    cold = _build_twice(cold_root, edit, run_kgen, "build")
    cold_renders = len(rendered)
    monkeypatch.delenv("KGEN_NO_CACHE")
    warm_root = _copy(tmp_path / "warm")
    assert run_kgen("build", "-C", str(warm_root)).code == 0
    del rendered[:]
    edit(warm_root)
    warm = run_kgen("build", "-C", str(warm_root))
    assert (warm.code, warm.out, warm.err) == (cold.code, cold.out, cold.err)
    assert files_below(warm_root / "manifests") == files_below(cold_root / "manifests")
    if expected_renders is not None:
        assert len(rendered) == expected_renders, sorted(rendered)
    else:
        assert len(rendered) > 20, rendered
    assert cold_renders > 20  # the cold side really rendered everything


@pytest.mark.parametrize("command", [("validate",), ("build", "--check")])
def test_warm_check_equals_cold_check(
    command: tuple[str, ...],
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
):
    edit = EDITS["a job's image"][0]
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    cold = _build_twice(_copy(tmp_path / "cold"), edit, run_kgen, *command)
    monkeypatch.delenv("KGEN_NO_CACHE")
    root = _copy(tmp_path / "warm")
    warm = _build_twice(root, edit, run_kgen, *command)
    again = run_kgen(*command, "-C", str(root))
    assert (warm.code, warm.out, warm.err) == (cold.code, cold.out, cold.err)
    assert (again.code, again.out, again.err) == (cold.code, cold.out, cold.err)
    # validate warns that the image changes a committed job in place, and for the
    # TrainJob (whose trainer is immutable) says it is an error; --check says the
    # output is out of date.
    assert cold.code == 1
    assert ("job-changed-in-place" in cold.err) == (command == ("validate",))
    assert ("immutable-field-changed" in cold.err) == (command == ("validate",))


def _cache_files(root: Path) -> list[Path]:
    folder = kgen_cache.cache_folder(root)
    assert folder is not None
    return sorted(folder.glob("*.pickle"))


def test_a_corrupt_cache_is_ignored(tmp_path: Path, run_kgen: RunKgen):
    root = _copy(tmp_path / "project")
    assert run_kgen("build", "-C", str(root)).code == 0
    expected = files_below(root / "manifests")
    files = _cache_files(root)
    names = [f.name for f in files]
    assert names[0] == "identities.pickle"
    assert any(n.startswith("renders-") for n in names)
    assert all(n.startswith(("renders-", "texts-")) for n in names[1:])
    for path in files:
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    shutil.rmtree(root / "manifests")
    assert run_kgen("build", "-C", str(root)).code == 0
    assert files_below(root / "manifests") == expected


class _Planted:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("planted code ran",))


def test_a_cache_never_runs_code(
    tmp_path: Path, run_kgen: RunKgen, capsys: pytest.CaptureFixture[str]
):
    root = _copy(tmp_path / "project")
    assert run_kgen("build", "-C", str(root)).code == 0
    for path in _cache_files(root):
        path.write_bytes(pickle.dumps((kgen_cache.code_digest(), {"x": _Planted()})))
    result = run_kgen("build", "--check", "-C", str(root))
    assert result.code == 0, result
    assert "planted" not in result.out + result.err


def test_no_cache_writes_nothing(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    root = _copy(tmp_path / "project")
    assert run_kgen("build", "-C", str(root)).code == 0
    monkeypatch.delenv("KGEN_NO_CACHE")
    assert _cache_files(root) == []


def test_no_cache_flag_writes_nothing(tmp_path: Path, run_kgen: RunKgen):
    root = _copy(tmp_path / "project")
    assert run_kgen("--no-cache", "build", "-C", str(root)).code == 0
    assert _cache_files(root) == []
    assert run_kgen("build", "-C", str(root)).code == 0
    assert len(_cache_files(root)) > 2  # identities, renders, texts by shard


def test_a_one_spec_validate_keeps_identities_but_renders_nothing_new(
    tmp_path: Path, run_kgen: RunKgen
):
    root = _copy(tmp_path / "project")
    assert run_kgen("validate", "jobs/tf-ps.yaml", cwd=root).code == 0
    # kgen.yaml and the overlays are validated every run, never kept (kgen.load.project).
    assert [f.name for f in _cache_files(root)] == ["identities.pickle"]
    identities = pickle.loads(_cache_files(root)[0].read_bytes())[1]
    assert len(identities) == len(list((root / "jobs").glob("*.yaml")))


def test_dependency_versions_are_the_ones_importlib_metadata_reports():
    # The cache key reads versions from the dist-info folders itself (importlib.metadata
    # is slow to import); both must name the same installed versions.
    import importlib.metadata

    from kgen.pipeline.code import _DEPENDENCIES, _normalized, installed_versions

    versions = installed_versions()
    assert {name: versions.get(_normalized(name)) for name in _DEPENDENCIES} == {
        name: importlib.metadata.version(name) for name in _DEPENDENCIES
    }
