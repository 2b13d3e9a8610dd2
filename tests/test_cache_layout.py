"""Where the render cache keeps a job's renders (kgen.pipeline.cache): all of a job's
environments in one file, so the build after a one-spec edit reads a job's renders
together and rewrites one file of renders, not one for each environment."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

from kgen.pipeline import cache as kgen_cache
from tests.conftest import RunKgen, copy_example, no_hang


def _renders(root: Path) -> dict[str, bytes]:
    folder = kgen_cache.cache_folder(root)
    assert folder is not None
    return {p.name: p.read_bytes() for p in sorted(folder.glob("renders-*.pickle"))}


def test_a_jobs_renders_share_one_file(tmp_path: Path, run_kgen: RunKgen) -> None:
    root = copy_example(tmp_path / "project")
    assert run_kgen("build", "-C", str(root)).code == 0
    files_of: dict[str, set[str]] = {}
    envs_of: dict[str, set[str]] = {}
    for name, data in _renders(root).items():
        _salt, table = pickle.loads(data)
        for key in table:
            job, _, env = key.partition("/")
            files_of.setdefault(job, set()).add(name)
            envs_of.setdefault(job, set()).add(env)
    assert len(files_of) == len(list((root / "jobs").glob("*.yaml")))
    assert {len(files) for files in files_of.values()} == {1}
    # Jobs rendered in several environments, or the layout would not show.
    assert max(len(envs) for envs in envs_of.values()) >= 3


def test_one_edited_spec_writes_its_renders_into_one_file(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    root = copy_example(tmp_path / "project")
    assert run_kgen("build", "-C", str(root)).code == 0
    before = _keys(root)
    spec = root / "jobs" / "mnist-ddp.yaml"
    spec.write_text(spec.read_text() + "# edited\n")
    result = run_kgen("build", "-C", str(root))
    assert result.code == 0, result.err
    # The output is what it was: the edit was a comment.
    assert ": 0 files written, 0 removed, " in result.err
    new = {name: keys - before.get(name, set()) for name, keys in _keys(root).items()}
    made = {name: keys for name, keys in new.items() if keys}
    assert len(made) == 1
    assert len(next(iter(made.values()))) >= 3  # the job's environments


def _keys(root: Path) -> dict[str, set[str]]:
    return {name: set(pickle.loads(data)[1]) for name, data in _renders(root).items()}


def test_a_render_is_in_the_file_of_its_keys_first_six_bits() -> None:
    """The table the cache looks shards up in gives what the key's first six bits
    say, for every first byte (and an upper-case key the same file)."""
    for byte in range(256):
        key = f"{byte:02x}" + "0" * 62 + "/dev"
        expected = format(byte >> 2, "02x")
        assert kgen_cache.shard_of(key) == expected
        assert kgen_cache.shard_of(key.upper()) == expected
    assert len({kgen_cache.shard_of(f"{b:02x}") for b in range(256)}) == 64


def _identities(root: Path) -> set[str]:
    folder = kgen_cache.cache_folder(root)
    assert folder is not None
    return set(pickle.loads((folder / "identities.pickle").read_bytes())[1])


def test_an_edited_jobs_old_identity_is_forgotten(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    # Each edit made a new identity (the job's bytes are its key) and none went: the
    # table grew by one with every edit, for ever.
    root = copy_example(tmp_path / "project")
    assert run_kgen("build", "-C", str(root)).code == 0
    first = _identities(root)
    assert len(first) == len(list((root / "jobs").glob("*.yaml")))
    spec = root / "jobs" / "mnist-ddp.yaml"
    for edit in range(3):
        spec.write_text(spec.read_text() + f"# edit {edit}\n")
        assert run_kgen("build", "-C", str(root)).code == 0
    assert len(_identities(root)) == len(first)
    # A run over some jobs keeps what it did not read.
    spec.write_text(spec.read_text() + "# edit 3\n")
    assert run_kgen("validate", "-C", str(root), str(spec)).code == 0
    assert len(_identities(root)) == len(first) + 1
    # The next whole run that writes the table drops it (one alone does not make a
    # run rewrite it: a quarter of the table does).
    spec.write_text(spec.read_text() + "# edit 4\n")
    assert run_kgen("validate", "-C", str(root)).code == 0
    assert len(_identities(root)) == len(first)


def test_cache_files_that_are_no_regular_files_are_ignored(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    # A FIFO in the cache folder blocked a plain open for ever; a link was read, and
    # written through.
    root = copy_example(tmp_path / "project")
    assert run_kgen("build", "-C", str(root)).code == 0
    assert run_kgen("build", "--check", "-C", str(root)).code == 0
    folder = kgen_cache.cache_folder(root)
    assert folder is not None
    outside = tmp_path / "outside.pickle"
    outside.write_bytes(b"not kgen's")
    planted = sorted(folder.glob("*.pickle"))
    assert {"identities.pickle", "run-build-check.pickle"} <= {p.name for p in planted}
    for index, path in enumerate(planted):
        path.unlink()
        if index % 2:
            path.symlink_to(outside)
        else:
            os.mkfifo(path)

    with no_hang("kgen hung on a file of its cache"):
        for args in (("build", "--check"), ("build",), ("build", "--check")):
            assert run_kgen(*args, "-C", str(root)).code == 0, args
    assert outside.read_bytes() == b"not kgen's"
