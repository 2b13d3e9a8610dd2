"""The record of the job files (kgen.load.job_record): a run that takes a job file's
bytes from it never answers differently from a run that reads every file.

Every case changes a job file the record knows, in one of the ways a file can change
behind kgen's back, on two copies of a project: one built with the cache (and so the
record), one with KGEN_NO_CACHE. The build that follows must give the same exit code,
stdout, stderr and output tree on both. Files are aged a minute first, as a project's
files are between two commands: a file changed within the clock step before kgen looks
is never recorded (git's racy files).
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kgen.load import files, job_record
from kgen.load.job_record import NAME, JobFiles
from kgen.output.scan import pack_stat
from kgen.pipeline.cache import cache_folder
from kgen.pipeline.code import code_identity, digest
from tests.conftest import REPO, RunKgen, no_hang
from tests.warm_cold import age, built_pair, plant, rewrite, same_as_cold

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import edit_spec, generate

JOB = "jobs/job-00001.yaml"


def _record(root: Path) -> Path:
    folder = cache_folder(root)
    assert folder is not None
    return folder / NAME


def _pair(tmp_path: Path, run_kgen: RunKgen) -> tuple[Path, Path]:
    """Two built copies of a project of 4 jobs, aged; the first's job files recorded
    (by the run after the aging: the first build read files seconds old)."""
    warm, cold = built_pair(tmp_path, run_kgen, lambda root: generate(root, 4))
    assert run_kgen("build", "-C", str(warm)).code == 0
    known = JobFiles(cache_folder(warm)).old
    assert sorted(known) == [f"jobs/job-{n:05d}.yaml" for n in range(4)]
    return warm, cold


def _more_epochs(data: bytes) -> bytes:
    """The job's epochs from `"3"`-ish to another number of the same length."""
    at = data.index(b'--epochs, "') + len(b'--epochs, "')
    digit = data[at : at + 1]
    other = b"7" if digit != b"7" else b"8"
    return data[:at] + other + data[at + 1 :]


def _linked(root: Path) -> None:
    """The job file replaced by a link to an edited copy elsewhere in the project."""
    elsewhere = root / "specs" / "job-00001.yaml"
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(_more_epochs((root / JOB).read_bytes()))
    (root / JOB).unlink()
    (root / JOB).symlink_to(elsewhere)


def _fifo(root: Path) -> None:
    (root / JOB).unlink()
    os.mkfifo(root / JOB)


def _folder(root: Path) -> None:
    (root / JOB).unlink()
    (root / JOB).mkdir()


CHANGES: dict[str, Callable[[Path], object]] = {
    "edited in place, size and mtime kept": lambda root: rewrite(
        root / JOB, _more_epochs, new_inode=False
    ),
    "replaced, size and mtime kept": lambda root: rewrite(
        root / JOB, _more_epochs, new_inode=True
    ),
    "edited as the bench does": lambda root: edit_spec(root, 1, 9),
    "replaced by a link": _linked,
    "replaced by a FIFO": _fifo,
    "replaced by a folder": _folder,
    "removed": lambda root: (root / JOB).unlink(),
    "emptied": lambda root: (root / JOB).write_bytes(b""),
    "a job added": lambda root: (root / "jobs/job-00009.yaml").write_bytes(
        _more_epochs((root / JOB).read_bytes()).replace(b"00001", b"00009")
    ),
    "nothing": lambda root: None,
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_a_changed_job_file_is_never_taken_from_the_record(
    name: str, tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> None:
    warm, cold = _pair(tmp_path, run_kgen)
    for root in (warm, cold):
        CHANGES[name](root)
    with no_hang(f"the build hung on a job file {name}"):
        found = same_as_cold(run_kgen, monkeypatch, warm, cold, "build")
    if name in ("replaced by a FIFO", "replaced by a folder"):
        assert found.code == 1 and ", not a file (io)" in found.err
    elif name == "emptied":
        assert found.code == 1 and f"{JOB}:1:1: error: a job spec must be" in found.err
    elif name != "nothing":
        assert found.code == 0 and "0 files written" not in found.err
    # And once more, with whatever this run recorded.
    age(warm)
    age(cold)
    same_as_cold(run_kgen, monkeypatch, warm, cold, "build", "--check")


def _opened_jobs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The job files loading opens from here on."""
    opened: list[str] = []
    original = files.read_unlinked

    def counted(path: str, display: str) -> object:
        opened.append(display)
        return original(path, display)

    monkeypatch.setattr(job_record, "read_unlinked", counted)
    return opened


def test_loading_reads_only_the_job_files_that_changed(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> None:
    warm, _cold = _pair(tmp_path, run_kgen)
    edit_spec(warm, 2, 9)
    opened = _opened_jobs(monkeypatch)
    assert run_kgen("build", "-C", str(warm)).code == 0
    assert opened == ["jobs/job-00002.yaml"]
    opened.clear()
    # A spec just written is not recorded (its mtime is within the clock step of
    # the moment kgen looked): it is read again, until it has aged.
    assert run_kgen("build", "-C", str(warm)).code == 0
    assert opened == ["jobs/job-00002.yaml"]
    opened.clear()
    age(warm)
    assert run_kgen("build", "-C", str(warm)).code == 0
    assert opened == [f"jobs/job-{n:05d}.yaml" for n in range(4)]  # aging: a ctime
    opened.clear()
    assert run_kgen("build", "-C", str(warm)).code == 0
    assert opened == []


def test_a_file_changed_as_it_is_read_is_not_recorded(tmp_path: Path) -> None:
    record = JobFiles(tmp_path)
    record.since = 5_150_000_000
    fresh = pack_stat(10, 5_123_456_789, 5_123_456_789, 1, 1, 0o100644)
    record.read("jobs/a.yaml", fresh, b"a: 1\n", "key")  # within the clock step
    # Its mtime touched back (`touch -d`), its ctime within the clock step.
    touched = pack_stat(10, 1_000_000_001, 5_123_456_789, 1, 1, 0o100644)
    record.read("jobs/a.yaml", touched, b"a: 1\n", "key")
    record.save()
    assert not (tmp_path / NAME).exists()
    aged = pack_stat(10, 5_000_000_001, 5_000_000_001, 1, 1, 0o100644)
    record.read("jobs/a.yaml", aged, b"a: 1\n", "key")
    record.save()
    assert JobFiles(tmp_path).old == {"jobs/a.yaml": (aged, b"a: 1\n", "key")}


def test_the_record_lives_outside_the_project(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    warm, cold = _pair(tmp_path, run_kgen)
    where = _record(warm)
    assert where.is_file()
    assert warm.resolve() not in where.resolve().parents
    assert _record(cold) != where


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"not a pickle",
        pickle.dumps(("salt", {})),
        pickle.dumps((code_identity(), {JOB: (b"short", b"a: 1\n", "key")})),
        pickle.dumps((code_identity(), [JOB])),
        # Anything but plain data is refused before it is made.
        b"cos\nsystem\n(S'touch planted'\ntR.",
    ],
)
def test_a_damaged_or_foreign_record_is_ignored(
    damage: bytes,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    warm, cold = _pair(tmp_path, run_kgen)
    _record(warm).write_bytes(damage)
    for root in (warm, cold):
        rewrite(root / JOB, _more_epochs, new_inode=False)
    monkeypatch.chdir(tmp_path)
    found = same_as_cold(run_kgen, monkeypatch, warm, cold, "build")
    assert found.code == 0
    assert not (tmp_path / "planted").exists()


def test_a_record_of_other_bytes_for_the_same_lstat_is_what_it_trusts(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    """The record is what it vouches for (which is why it lives where a pull request
    cannot write): with other bytes under a file's very lstat, they are what the
    build renders. Here, to show that the record is what was used."""
    warm, _cold = _pair(tmp_path, run_kgen)
    output = warm / "manifests/dev-cpu/pt-job-00001.pytorchjob.yaml"
    before = output.read_bytes()
    where = _record(warm)
    salt, table = pickle.loads(where.read_bytes())
    status, raw, _key = table[JOB]
    other = _more_epochs(raw)
    table[JOB] = (status, other, digest(JOB, other))
    where.write_bytes(pickle.dumps((salt, table)))
    for replay in where.parent.glob("run-*.pickle"):  # the unchanged build's record
        replay.unlink()
    assert run_kgen("build", "-C", str(warm)).code == 0
    assert (warm / JOB).read_bytes() == raw
    assert output.read_bytes() != before


@pytest.mark.parametrize("planted", ["fifo", "link"])
def test_a_record_that_is_no_regular_file_is_ignored_not_followed(
    planted: str,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    warm, cold = _pair(tmp_path, run_kgen)
    where = _record(warm)
    target = tmp_path / "elsewhere.pickle"
    plant(where, planted, target)
    for root in (warm, cold):
        rewrite(root / JOB, _more_epochs, new_inode=False)
        age(root)  # so that this run records
    with no_hang("the build hung on the job record"):
        found = same_as_cold(run_kgen, monkeypatch, warm, cold, "build")
    assert found.code == 0
    assert where.is_file() and not where.is_symlink()  # replaced, not written through
    assert target.read_bytes() != where.read_bytes()
