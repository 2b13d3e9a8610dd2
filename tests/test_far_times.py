"""Files whose times the records cannot hold in 64 bits of nanoseconds: after 2262 or
before 1677 (`touch -d 2300-01-01`, a clock gone wrong, an archive from elsewhere).

kgen.output.scan packs each lstat kgen records (the job files', the output tree's, the
early scan's folders'); such a time raised there, and every command that looked at
the file ended in an internal error (exit 3). Each command now says and leaves what
it says and leaves without records, and a file with a time in the far future is
never recorded (kgen.output.racy: it is not safely in the past)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from kgen.load.job_record import JobFiles
from kgen.output.scan import mtime_of, stat_of
from kgen.pipeline.cache import cache_folder
from tests.conftest import REPO, RunKgen
from tests.warm_cold import built_pair, rewrite, same_as_cold, swap_case

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import generate

FUTURE_NS = 10_413_792_000 * 10**9  # 2300-01-01
PAST_NS = -11_676_096_000 * 10**9  # 1600-01-01
JOB = "jobs/job-00001.yaml"
OUT = "manifests/dev-cpu/pt-job-00001.pytorchjob.yaml"


def _at(path: Path, when_ns: int) -> None:
    os.utime(path, ns=(when_ns, when_ns), follow_symlinks=False)


@pytest.mark.parametrize("when", [FUTURE_NS, PAST_NS], ids=["2300", "1600"])
def test_a_job_file_of_a_far_time(
    when: int, tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> None:
    warm, cold = built_pair(tmp_path, run_kgen, lambda root: generate(root, 4))
    for root in (warm, cold):
        _at(root / JOB, when)
    kept = os.lstat(warm / JOB).st_mtime_ns  # a file system may hold it at its bound
    if when > 0 and kept < 1 << 63:
        pytest.skip("the file system holds no time past 2262")
    time.sleep(0.1)  # past the clock step: its ctime settled
    for command in ("validate", "build", "validate"):
        assert same_as_cold(run_kgen, monkeypatch, warm, cold, command).code == 0
    recorded = JobFiles(cache_folder(warm)).old
    assert (JOB in recorded) is (when < 0)  # a future is never taken as settled
    if when < 0:
        assert recorded[JOB][0] == stat_of(os.lstat(warm / JOB))


@pytest.mark.parametrize("when", [FUTURE_NS, PAST_NS], ids=["2300", "1600"])
def test_an_output_file_of_a_far_time(
    when: int, tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> None:
    warm, cold = built_pair(tmp_path, run_kgen, lambda root: generate(root, 4))
    assert run_kgen("build", "--check", "-C", str(warm)).code == 0  # recorded
    for root in (warm, cold):
        _at(root / OUT, when)
        (root / "manifests/dev-cpu").touch()  # a folder's time too
        _at(root / "manifests/dev-cpu", when)
    time_ok = same_as_cold(run_kgen, monkeypatch, warm, cold, "build", "--check")
    assert time_ok.code == 0
    for root in (warm, cold):
        rewrite(root / OUT, swap_case, new_inode=False)  # its far time given back
    drift = same_as_cold(run_kgen, monkeypatch, warm, cold, "build", "--check")
    assert drift.code == 1 and f"modified: {OUT}" in drift.out + drift.err
    assert same_as_cold(run_kgen, monkeypatch, warm, cold, "build").code == 0
    assert same_as_cold(run_kgen, monkeypatch, warm, cold, "build", "--check").code == 0


def test_a_far_time_is_held_at_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("x")
    _at(path, FUTURE_NS)
    assert mtime_of(stat_of(os.lstat(path))) == (1 << 63) - 1
