"""kgen's code digest is kept in the user's cache by the sources' identity
(kgen.pipeline.code_store): read back while the identity holds, computed again when it
changed or the file is anything but what kgen wrote, and never kept with the cache off."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kgen.check import stored
from kgen.pipeline import code_store
from kgen.pipeline.code import code_identity, source_digest

A = "a" * 64
B = "b" * 64


class Counted:
    def __init__(self, value: str) -> None:
        self.value = value
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        return self.value


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("KGEN_CACHE_DIR", str(folder))
    monkeypatch.delenv("KGEN_NO_CACHE", raising=False)
    monkeypatch.setattr(code_store, "_off", False)
    return folder


def _stored(cache: Path) -> Path:
    [path] = cache.glob("code-*.json")
    return path


def test_the_digest_is_read_back_while_the_identity_holds(cache: Path):
    compute = Counted(A)
    assert code_store.stored_digest("id-1", compute) == A
    assert code_store.stored_digest("id-1", Counted(B)) == A  # not computed again
    assert compute.calls == 1
    assert _stored(cache).read_text() == f'{{"digest":"{A}","identity":"id-1"}}'
    # Another identity (a source edited, another Python): computed and kept instead.
    assert code_store.stored_digest("id-2", Counted(B)) == B
    assert code_store.stored_digest("id-2", Counted(A)) == B
    assert code_store.stored_digest("id-1", Counted(A)) == A


@pytest.mark.parametrize(
    "odd",
    [
        b"",
        b"{",
        b"[1]",
        b'{"digest":"%s","identity":"id-2"}' % A.encode(),
        b'{"digest":"../x","identity":"id-1"}',
        b'{"digest":["%s"],"identity":"id-1"}' % A.encode(),
        b'{"digest":"%s","identity":"id-1","x":"%s"}' % (A.encode(), b" " * 5000),
        b"[" * 4000,
    ],
    ids=["empty", "cut", "list", "other", "not-hex", "not-str", "too-big", "deep"],
)
def test_an_odd_file_means_computing_again(cache: Path, odd: bytes):
    code_store.stored_digest("id-1", Counted(B))
    _stored(cache).write_bytes(odd)
    compute = Counted(A)
    assert code_store.stored_digest("id-1", compute) == A
    assert compute.calls == 1
    assert code_store.stored_digest("id-1", Counted(B)) == A  # and written again


@pytest.mark.parametrize("kind", ["link", "folder", "fifo"])
def test_anything_but_a_regular_file_is_not_read(cache: Path, kind: str):
    code_store.stored_digest("id-1", Counted(B))
    path = _stored(cache)
    path.unlink()
    if kind == "link":
        planted = cache / "planted.json"
        planted.write_text(f'{{"digest":"{B}","identity":"id-1"}}')
        path.symlink_to(planted)
    elif kind == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)  # would block a plain open
    assert code_store.stored_digest("id-1", Counted(A)) == A


def test_the_stored_digest_is_the_sources_digest(cache: Path):
    assert code_store.stored_digest(code_identity(), source_digest) == source_digest()
    assert code_store.stored_digest(code_identity(), Counted(A)) == source_digest()


def test_nothing_is_kept_with_the_cache_off(
    cache: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    assert code_store.stored_digest("id-1", Counted(A)) == A
    assert not cache.exists()
    monkeypatch.delenv("KGEN_NO_CACHE")
    code_store.keep(False)  # --no-cache
    assert code_store.stored_digest("id-1", Counted(A)) == A
    assert not cache.exists()
    code_store.keep(True)
    code_store.stored_digest("id-1", Counted(A))
    assert code_store.stored_digest("id-1", Counted(B)) == A


def test_a_project_loaded_without_the_cache_reads_no_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """kgen's sources salt the cache's keys alone: with the cache off (--no-cache,
    KGEN_NO_CACHE) they are neither read nor hashed."""
    from kgen.load import project

    def refuse() -> str:
        raise AssertionError("kgen's code digest computed with the cache off")

    monkeypatch.setattr(project, "code_digest", refuse)
    root = tmp_path / "project"
    (root / "jobs").mkdir(parents=True)
    (root / "kgen.yaml").write_text("environments: {dev: {overlays: []}}\n")
    before = stored.folder()
    try:
        loaded, problems = project.load_project(root, use_cache=False)
        assert loaded is not None and problems == []
        monkeypatch.setenv("KGEN_NO_CACHE", "1")
        assert project.load_project(root)[0] is not None
    finally:
        stored.use_folder(before)
