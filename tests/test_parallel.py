"""Workers change nothing but the time: the same bytes, problems and exit codes on one
core or several (loading and rendering both go through kgen.pipeline.parallel)."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kgen.load import jobs as load_jobs
from kgen.pipeline import parallel
from tests.conftest import REPO, RunKgen, files_below, no_hang

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import generate


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    generate(root, 40)
    return root


def _run(
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    project: Path,
    workers: int,
    *args: str,
) -> tuple[int, str, str]:
    monkeypatch.setenv("KGEN_WORKERS", str(workers))
    result = run_kgen(*args, "-C", str(project))
    return result.code, result.out, result.err


@pytest.fixture(autouse=True)
def small_runs_in_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 2)
    monkeypatch.setenv("KGEN_NO_CACHE", "1")  # every run does all its work


def test_parallel_build_is_byte_identical(
    project: Path,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    forked_pools: list[str],
):
    other = tmp_path / "other"
    shutil.copytree(project, other)
    # Parsed while loading, whatever the order kgen.load.jobs was imported in (it takes
    # its own MIN_PARALLEL when imported: after small_runs_in_workers, 2, and the jobs
    # were left to one pool, tests/test_one_pool.py's case).
    monkeypatch.setattr(load_jobs, "MIN_PARALLEL", 10**9)
    pools = forked_pools
    serial = _run(run_kgen, monkeypatch, project, 1, "build")
    assert pools == []
    spread = _run(run_kgen, monkeypatch, other, 2, "build")
    assert pools == ["fork", "fork"]  # loading, then rendering
    assert serial[0] == 0, serial
    assert spread == serial
    assert files_below(other / "manifests") == files_below(project / "manifests")
    assert len(files_below(project / "manifests")) > 400


def test_parallel_problems_are_identical(
    project: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    jobs = sorted((project / "jobs").iterdir())
    jobs[3].write_text(jobs[3].read_text().replace("replicas: ", "replicas: -"))
    jobs[17].write_text("name: [unclosed\n")
    jobs[30].write_text(jobs[30].read_text() + "extraKey: 1\n")
    serial = _run(run_kgen, monkeypatch, project, 1, "validate", "--format", "json")
    spread = _run(run_kgen, monkeypatch, project, 2, "validate", "--format", "json")
    assert serial[0] == 1
    assert spread == serial
    assert serial[1].count('"severity": "error"') >= 3, serial[1]


@pytest.mark.parametrize(
    ("cores", "load", "workers"),
    [
        (2, 0.0, 2),  # idle: every core
        (2, 0.4, 2),
        (2, 1.0, 1),  # one core busy elsewhere: a second worker would only queue
        (2, 3.3, 1),  # busy (the load of the issue): one, never none
        (8, 3.0, 5),
        (1, 0.0, 1),
    ],
)
def test_workers_follow_the_idle_cores(cores: int, load: float, workers: int):
    assert parallel.workers_for(cores, load) == workers


def test_kgen_workers_overrides_the_load(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(parallel, "_load", lambda: 50.0)
    monkeypatch.setenv("KGEN_WORKERS", "3")
    assert parallel.worker_count() == 3
    monkeypatch.delenv("KGEN_WORKERS")
    assert parallel.worker_count() == 1


@pytest.mark.parametrize("value", ["²", "٣", "abc", "0", "-2", " 2"])
def test_kgen_workers_not_a_count_is_ignored(
    value: str, monkeypatch: pytest.MonkeyPatch, project: Path, run_kgen: RunKgen
):
    """Not ASCII digits (a superscript or Arabic-Indic digit is one to str.isdigit,
    not to int), or 0: the load decides, as without KGEN_WORKERS."""
    monkeypatch.setattr(parallel, "_load", lambda: 50.0)
    monkeypatch.setenv("KGEN_WORKERS", value)
    assert parallel.worker_count() == 1
    assert run_kgen("build", "-C", str(project)).code == 0


def _square(item: int) -> int:
    if item == 13_000:
        raise ValueError(f"piece {item} failed")
    return item * item


_LEFT_EARLY = """
import multiprocessing, os, time
os.environ["KGEN_WORKERS"] = "2"
from kgen.pipeline import parallel
from tests.test_parallel import _square
stream = parallel.imap_units(_square, range(10_000))
assert [next(stream) for _ in range(500)] == [i * i for i in range(500)]
time.sleep(0.5)  # the workers fill the window of results not taken, and wait
stream.close()
assert multiprocessing.active_children() == []
"""


def test_a_stream_left_early_stops_its_workers():
    # Results stream back in order while the workers go on; a parent that stops
    # taking them (an error while writing) ends the pool, never waits on it. In a
    # process of its own: a wait would be a hang.
    done = subprocess.run(
        [sys.executable, "-c", _LEFT_EARLY], cwd=REPO, timeout=60, check=False
    )
    assert done.returncode == 0


def test_a_failed_piece_fails_the_stream_in_order(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("KGEN_WORKERS", "2")
    taken: list[int] = []
    with pytest.raises(ValueError, match="piece 13000 failed"):
        taken.extend(parallel.imap_units(_square, range(20_000)))
    # Every result before the failed piece's batch, in order, and none after it.
    assert 13_000 - parallel.STREAM_CHUNK <= len(taken) <= 13_000
    assert taken == [i * i for i in range(len(taken))]
    assert multiprocessing.active_children() == []


def _dies(item: int) -> int:
    if item == 7:
        os._exit(9)  # as the kernel's OOM killer or a signal would end it
    return item


@pytest.mark.parametrize("streamed", [False, True])
def test_a_worker_that_dies_ends_the_run(
    monkeypatch: pytest.MonkeyPatch, streamed: bool
):
    # multiprocessing.Pool replaced a dead worker and waited for ever for the chunk
    # it had taken; the run must end, with an error the command line reports as
    # internal (exit 3) and that says what happened.
    monkeypatch.setenv("KGEN_WORKERS", "2")

    with (
        no_hang("the run hung on a dead worker"),
        pytest.raises(RuntimeError, match=r"^a worker process died \(killed by"),
    ):
        if streamed:
            list(parallel.imap_units(_dies, list(range(400))))
        else:
            parallel.map_units(_dies, list(range(400)))
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("count", [0, 1, 7, 63, 200, 1_000, 10_000])
@pytest.mark.parametrize("workers", [2, 3])
def test_chunks_take_every_piece_once_and_shrink_toward_the_end(
    count: int, workers: int
):
    chunks = list(parallel.tapered(count, parallel.STREAM_CHUNK, workers))
    assert [i for start, end in chunks for i in range(start, end)] == list(range(count))
    sizes = [end - start for start, end in chunks]
    assert all(0 < size <= parallel.STREAM_CHUNK for size in sizes)
    # Each chunk is at most a share of what is left for every worker: the last a
    # worker takes alone is small, the others not long idle.
    for start, end in chunks:
        assert end - start <= -(-(count - start) // (2 * workers))
    if count >= 1_000:
        assert sizes[0] == parallel.STREAM_CHUNK and sizes[-1] == 1


_SETTLED = """
import multiprocessing, os, threading
os.environ["KGEN_WORKERS"] = "2"
from kgen.pipeline import parallel
from tests.test_parallel import _square
assert list(parallel.imap_units(_square, range(10_000))) == [i * i for i in range(10_000)]
parallel.settle()
assert multiprocessing.active_children() == []
assert threading.active_count() == 1
"""


def test_a_finished_stream_lets_its_workers_go_and_settle_waits_for_them():
    # A stream taken to its end does not wait for its workers to leave (the run
    # writes its cache meanwhile); settle() does, so that the process ends alone,
    # quickly (kgen.cli_exit). In a process of its own: a wait would be a hang.
    done = subprocess.run(
        [sys.executable, "-c", _SETTLED], cwd=REPO, timeout=60, check=False
    )
    assert done.returncode == 0
