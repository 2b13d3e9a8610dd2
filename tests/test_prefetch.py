"""A plain `kgen build` reads the job specs on a second thread while it imports
(kgen.load.prefetch): what it reads, and so what it prints, writes and returns, is what
the build read itself before, for hostile jobs folders too; the thread never hangs,
never outlives the command, and never runs across a fork."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from kgen import cli_exit
from kgen.load import job_files, prefetch
from kgen.load.job_files import read_job_files
from tests.conftest import REPO, files_below, no_hang
from tests.test_cli_quick import CLICK, QUICK, kgen

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import edit_spec, generate


@pytest.fixture(autouse=True)
def _no_thread_left() -> object:
    yield
    prefetch.stop()


def _project(tmp_path: Path, jobs: int = 3) -> Path:
    root = tmp_path / "project"
    generate(root, jobs)
    return root


def _hostile_jobs(root: Path, outside: Path) -> None:
    """A jobs folder with everything a build must refuse, and a pipe that would
    block a plain open."""
    jobs = root / "jobs"
    os.mkfifo(jobs / "pipe.yaml")
    (jobs / "folder.yaml").mkdir()
    outside.write_text("framework: pytorch\n")
    (jobs / "escape.yaml").symlink_to(outside)
    (jobs / "loop.yaml").symlink_to(jobs / "loop.yaml")
    (jobs / "inside.yaml").symlink_to(jobs / "job-00001.yaml")
    (jobs / "big.yaml").write_bytes(b"#" * (1024 * 1024 + 1))
    (jobs / "bad\x01name.yaml").write_text("framework: pytorch\n")


def test_the_thread_reads_what_the_build_reads(tmp_path: Path) -> None:
    root = _project(tmp_path)
    _hostile_jobs(root, tmp_path / "outside.yaml")
    with no_hang("reading a jobs folder with a pipe in it", 30):
        prefetch.start(root)
        ahead = prefetch.take(root, "jobs")
        problems: list[object] = []
        read = read_job_files(root, "jobs", problems)  # type: ignore[arg-type]
    assert ahead is not None
    assert ahead == (read, problems)
    assert [name for name, _ in read] == [
        "jobs/inside.yaml",
        "jobs/job-00000.yaml",
        "jobs/job-00001.yaml",
        "jobs/job-00002.yaml",
    ]
    assert len(problems) == 6  # the pipe, the folder, the escape, the loop, size, name
    assert prefetch.take(root, "jobs") is None  # taken once


def test_only_the_folder_and_root_it_read_are_taken(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "jobs").rename(root / "specs")
    project = root / "kgen.yaml"
    project.write_text(project.read_text() + "jobs: specs  # moved\n")
    prefetch.start(root)
    assert prefetch.take(root, "jobs") is None
    prefetch.start(root)
    assert prefetch.take(root / "specs" / "..", "specs") is None  # another root
    prefetch.start(root)
    taken = prefetch.take(root, "specs")
    assert taken is not None and len(taken[0]) == 3


def _no_file(path: Path, kind: str) -> None:
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()


@pytest.mark.parametrize("kind", ["fifo", "link", "missing", "folder"])
def test_a_kgen_yaml_that_is_no_file_leaves_the_guess_to_the_default(
    tmp_path: Path, kind: str
) -> None:
    root = _project(tmp_path)
    _no_file(root / "kgen.yaml", kind)
    with no_hang("guessing the jobs folder", 30):
        prefetch.start(root)
        taken = prefetch.take(root, "jobs")
    assert taken is not None and len(taken[0]) == 3


def test_what_the_thread_raises_leaves_the_reading_to_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> object:
        raise MemoryError

    monkeypatch.setattr(job_files, "read_job_files", broken)
    root = _project(tmp_path)
    prefetch.start(root)
    assert prefetch.take(root, "jobs") is None


def test_a_fork_waits_for_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = threading.Event()

    def slow(*args: object) -> list[tuple[str, bytes]]:
        time.sleep(0.3)
        done.set()
        return []

    monkeypatch.setattr(job_files, "read_job_files", slow)
    prefetch.start(_project(tmp_path))
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child leaves at once
        os._exit(0)
    os.waitpid(pid, 0)
    assert done.is_set()  # the read was over before the fork
    assert threading.active_count() == 1


@pytest.mark.parametrize("hostile", [False, True])
def test_a_build_prints_writes_and_returns_what_it_did_through_click(
    tmp_path: Path, hostile: bool
) -> None:
    """Through click no thread reads ahead: the oracle for the quick command's."""
    runs = []
    for script in (QUICK, CLICK):
        root = _project(tmp_path / script[:10].replace(" ", "_"))
        if hostile:
            _hostile_jobs(root, tmp_path / "outside.yaml")
        cache = root.parent / "cache"
        first = kgen(script, "build", cwd=root, cache=cache)
        edit_spec(root, 1, 7)
        checked = kgen(script, "build", "--check", cwd=root, cache=cache)
        second = kgen(script, "build", cwd=root, cache=cache)
        runs.append((first, checked, second, files_below(root / "manifests")))
    assert runs[0] == runs[1]
    first, checked, second, tree = runs[0]
    if hostile:
        assert first[0] == 1 and "jobs/pipe.yaml is not a file" in first[2]
    else:
        assert (first[0], checked[0], second[0]) == (0, 1, 0) and tree


def test_a_replayed_build_reads_no_job_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run the record of the last one answers reads no job spec, on no thread."""
    from kgen.__main__ import main

    root = _project(tmp_path)
    monkeypatch.chdir(root)
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "argv", ["kgen", "build"])
    assert main() == 0
    old = os.stat(root).st_mtime - 60
    for path in [root, *root.rglob("*")]:  # settled: a record keeps them
        os.utime(path, (old, old), follow_symlinks=False)
    assert main() == 0  # recorded
    monkeypatch.setattr(sys, "argv", ["kgen", "build", "--check"])
    assert main() == 0  # recorded
    started: list[Path] = []
    monkeypatch.setattr(prefetch, "start", started.append)
    for args in (["kgen", "build"], ["kgen", "build", "--check"]):
        monkeypatch.setattr(sys, "argv", args)
        assert main() == 0
    assert started == []
    edit_spec(root, 1, 8)
    monkeypatch.setattr(sys, "argv", ["kgen", "build"])
    assert main() == 0
    assert started == [Path(".")]


def test_the_command_ends_alone_after_a_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The thread is joined before the command returns, on success and on error:
    the fast exit (kgen.cli_exit) finds no other thread."""
    from kgen.__main__ import main

    root = _project(tmp_path)
    monkeypatch.chdir(root)
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "cache"))
    for args in (["kgen", "build"], ["kgen", "build", "-C", "missing"]):
        monkeypatch.setattr(sys, "argv", args)
        main()
        assert prefetch._current is None
        assert threading.active_count() == 1
        assert cli_exit._alone()
    (root / "kgen.yaml").write_text("output: [\n")  # invalid: no job is read
    monkeypatch.setattr(sys, "argv", ["kgen", "build"])
    assert main() == 1
    assert threading.active_count() == 1


def test_a_record_of_the_build_counts_from_the_start_of_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgen.cli_settings import options_for
    from kgen.commands.up_to_date import Attempt

    root = _project(tmp_path)
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "cache"))
    prefetch.start(root)
    started = prefetch.started_ns()
    assert started is not None
    attempt = Attempt(options_for(root, "auto"), "build")
    assert attempt.since == started
