"""The cache keeps each render's texts apart from its facts (kgen.pipeline.cache):
`build --check` compares the tree with digests and reads no text, so its memory does
not grow with the size of the tree; whatever is missing, the answer is a cold run's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kgen.pipeline import cache as kgen_cache
from kgen.pipeline import run as pipeline
from tests.conftest import RunKgen, copy_example


@pytest.fixture
def root(tmp_path: Path, run_kgen: RunKgen) -> Path:
    root = copy_example(tmp_path / "project")
    assert run_kgen("build", "-C", str(root)).code == 0
    return root


def _texts(root: Path) -> list[Path]:
    folder = kgen_cache.cache_folder(root)
    assert folder is not None
    return sorted(folder.glob("texts-*.pickle"))


def _renders(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    rendered: list[object] = []
    real = pipeline.render_one

    def counted(*args: object, **kwargs: object) -> object:
        rendered.append(args[0])
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "render_one", counted)
    return rendered


def test_check_needs_no_text(
    root: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    for path in _texts(root):
        path.unlink()
    rendered = _renders(monkeypatch)
    result = run_kgen("build", "--check", "-C", str(root))
    assert (result.code, result.out) == (0, "")
    assert result.err.startswith("kgen: manifests/ is up to date (")
    assert rendered == []  # every render from the cache, by digest


@pytest.mark.parametrize("change", ["edited", "emptied", "longer"])
def test_check_by_digest_finds_a_changed_file(
    change: str, root: Path, run_kgen: RunKgen
):
    path = root / "manifests" / "dev-cpu" / "mnist-ddp.pytorchjob.yaml"
    text = path.read_text()
    changed = {
        "edited": text.replace("replicas: 1", "replicas: 2", 1),
        "emptied": "",
        "longer": text + "# more\n",
    }[change]
    assert changed != text
    path.write_text(changed)
    result = run_kgen("build", "--check", "-C", str(root))
    assert result.code == 1
    shown = path.relative_to(root).as_posix()
    assert result.err.startswith(f"modified: {shown}\n")


def test_a_build_without_texts_renders_again(
    root: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    expected = {p: p.read_bytes() for p in sorted((root / "manifests").rglob("*.yaml"))}
    for path in _texts(root):
        path.unlink()
    shutil.rmtree(root / "manifests")
    rendered = _renders(monkeypatch)
    assert run_kgen("build", "-C", str(root)).code == 0
    assert rendered  # the texts were gone: rendered again, not written empty
    found = {p: p.read_bytes() for p in sorted((root / "manifests").rglob("*.yaml"))}
    assert found == expected
    assert _texts(root)  # and kept again


def test_a_diff_from_the_cache_shows_texts(root: Path, run_kgen: RunKgen):
    path = root / "manifests" / "dev-cpu" / "mnist-ddp.pytorchjob.yaml"
    path.write_text(path.read_text().replace("replicas: 1", "replicas: 2", 1))
    result = run_kgen("build", "--check", "--diff", "-C", str(root))
    assert result.code == 1
    assert "-      replicas: 2\n+      replicas: 1\n" in result.out


def test_a_build_after_one_edit_needs_no_other_text(
    root: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    for path in _texts(root):
        path.unlink()
    job = root / "jobs" / "tf-ps.yaml"
    job.write_text(job.read_text() + "# reviewed\n")
    rendered = _renders(monkeypatch)
    assert run_kgen("build", "-C", str(root)).code == 0
    # Only the edited job's renders; every other file compared by its digest.
    assert {j.file for j in rendered} == {"jobs/tf-ps.yaml"}  # type: ignore[attr-defined]
    assert run_kgen("--no-cache", "build", "--check", "-C", str(root)).code == 0


def test_a_file_changed_by_hand_is_restored_by_its_job_rendered_again(
    root: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    path = root / "manifests" / "dev-cpu" / "mnist-ddp.pytorchjob.yaml"
    text = path.read_bytes()
    path.write_text("edited: by hand\n")
    rendered = _renders(monkeypatch)
    result = run_kgen("build", "-C", str(root))
    assert result.code == 0
    assert "1 file written" in result.err
    # Never the cache's text (kgen.pipeline.fresh): its job, and no other, rendered.
    assert {j.file for j in rendered} == {"jobs/mnist-ddp.yaml"}  # type: ignore[attr-defined]
    assert path.read_bytes() == text


def test_texts_of_another_shape_are_not_used(
    root: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    import pickle

    for path in _texts(root):
        salt, table = pickle.loads(path.read_bytes())
        bad = {key: tuple(1 for _ in texts) for key, texts in table.items()}
        path.write_bytes(pickle.dumps((salt, bad)))
    expected = {p: p.read_bytes() for p in sorted((root / "manifests").rglob("*.yaml"))}
    shutil.rmtree(root / "manifests")
    rendered = _renders(monkeypatch)
    assert run_kgen("build", "-C", str(root)).code == 0
    assert rendered  # rendered again instead
    found = {p: p.read_bytes() for p in sorted((root / "manifests").rglob("*.yaml"))}
    assert found == expected


@pytest.mark.parametrize("digest", ["not hex at all", 7])
def test_a_damaged_digest_costs_the_cache_not_the_run(
    digest: object, root: Path, run_kgen: RunKgen
):
    """A render cache whose digests are not SHA-256 hex (damaged, or another tool's)
    gives no internal error: the check cannot vouch for the files by them, and the
    build leaves the tree as it was."""
    import pickle

    from tests.warm_cold import age

    age(root)  # settled: the tree record vouches for the files by what they hold
    assert run_kgen("build", "--check", "-C", str(root)).code == 0
    folder = kgen_cache.cache_folder(root)
    assert folder is not None
    for path in sorted(folder.glob("renders-*.pickle")):
        salt, table = pickle.loads(path.read_bytes())
        for key, (facts, problems) in list(table.items()):
            files = tuple(f._replace(digest=digest) for f in facts.files)
            table[key] = (facts._replace(files=files), problems)
        path.write_bytes(pickle.dumps((salt, table)))
    expected = {p: p.read_bytes() for p in sorted((root / "manifests").rglob("*.yaml"))}
    check = run_kgen("build", "--check", "-C", str(root))
    assert check.code in (0, 1) and "internal error" not in check.err
    build = run_kgen("build", "-C", str(root))
    assert build.code == 0, build.err
    found = {p: p.read_bytes() for p in sorted((root / "manifests").rglob("*.yaml"))}
    assert found == expected
