"""The output schemas stored by one child before the workers fork (kgen.check.ahead):
the very files a build stores without it, byte for byte; none forked where they are all
stored already; and a child that fails leaves the build as it was, reaped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgen.check import ahead, core, output, stored
from kgen.pipeline import cache as kgen_cache
from kgen.pipeline import forked, parallel, run
from tests.conftest import REPO, RunKgen, files_below, no_hang

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import generate


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """A pool of two workers for a project of 12 jobs; what each child forked was
    for."""
    monkeypatch.setenv("KGEN_WORKERS", "2")
    monkeypatch.setattr(parallel, "SPARE_CORE", True)
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 8)
    made: list[str] = []
    real = forked.fork

    def spy(work: object, folder: Path, **kwargs: object) -> forked.Child | None:
        made.append(getattr(work, "__qualname__", ""))
        return real(work, folder, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(forked, "fork", spy)
    yield made
    assert ahead._child is None and not forked._running
    with pytest.raises(ChildProcessError):  # every child reaped
        os.waitpid(-1, os.WNOHANG)


def _schemas(root: Path) -> dict[str, bytes]:
    folder = kgen_cache.cache_folder(root)
    assert folder is not None
    return {n: d for n, d in files_below(folder).items() if n.startswith("schema-")}


def _built(
    tmp_path: Path, name: str, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, str]:
    root = tmp_path / name
    generate(root, 12)
    # As in a new process: no schema or validator built yet (the workers fork from
    # this one, which earlier tests may have rendered in).
    for cached in (output._checks, output._fast_validator, output.job_schema):
        cached.cache_clear()
    # The core definitions' validators too (an earlier test's team objects, a PVC or
    # a Deployment, leave them built; stored in that test's cache folder, not this one).
    core.validator_for.cache_clear()
    core.fast_validator.cache_clear()
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / f"{name}-cache"))
    result = run_kgen("build", "-C", str(root))
    assert result.code == 0, result
    return root, result.err


def test_the_childs_schemas_are_the_ones_the_workers_store(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    children: list[str],
    forked_pools: list[str],
) -> None:
    early, said = _built(tmp_path, "early", run_kgen, monkeypatch)
    assert children == ["start.<locals>.<lambda>"]
    assert set(forked_pools) == {"fork"}  # the renders ran in a pool
    stored = _schemas(early)
    # Each job kind on each of the three targets, and the core objects.
    assert len(stored) == 2 * 3 + len(output.CORE_DEFINITIONS)

    with monkeypatch.context() as off:
        off.setattr(ahead, "start", lambda jobs, version: None)
        late, late_said = _built(tmp_path, "late", run_kgen, monkeypatch)
    assert len(children) == 1
    assert late_said == said
    assert _schemas(late) == stored
    assert files_below(late / "manifests") == files_below(early / "manifests")

    # All stored: nothing to fork for the next cold build.
    folder = kgen_cache.cache_folder(early)
    assert folder is not None
    for path in folder.glob("renders-*"):
        path.unlink()
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "early-cache"))
    assert run_kgen("build", "-C", str(early)).code == 0
    assert len(children) == 1


def test_a_child_that_fails_leaves_the_schemas_to_the_workers(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    children: list[str],
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("broken")

    monkeypatch.setattr(ahead, "_build", broken)
    root, said = _built(tmp_path, "project", run_kgen, monkeypatch)
    assert len(children) == 1
    assert "48 renders): 149 files written" in said
    assert len(_schemas(root)) == 2 * 3 + len(output.CORE_DEFINITIONS)


def test_ctrl_c_stops_and_reaps_the_child(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    children: list[str],
) -> None:
    def slow(jobs: object, core: object, version: object) -> None:
        folder = stored.folder()
        assert folder is not None
        (folder / f".schema-x.json.{os.getpid()}.tmp").write_bytes(b"half")
        signal.pause()  # till it is stopped

    def interrupted(**kwargs: object) -> None:
        assert ahead._child is not None  # the child runs now
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(ahead, "_build", slow)
    monkeypatch.setattr(run, "prepare_rendering", interrupted)
    root = tmp_path / "project"
    generate(root, 12)
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "cache"))
    with no_hang("a build interrupted while its child writes"):
        result = run_kgen("build", "-C", str(root))
    assert (result.code, result.err) == (130, "\nkgen: aborted\n")  # as always
    assert len(children) == 1
    assert list((tmp_path / "cache").rglob(".*.tmp")) == []  # its half-written file
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


SIGTERMED = """
import os, signal, sys
from pathlib import Path
from kgen.check import ahead
from kgen.pipeline import forked, parallel, run

parallel.SPARE_CORE = True
parallel.MIN_PARALLEL = 8
real, pid_file = forked.fork, Path(sys.argv[1])

def fork(work, folder, **kwargs):
    child = real(work, folder, **kwargs)
    pid_file.write_text(str(child.pid))
    return child

def terminated(**kwargs):
    os.kill(os.getpid(), signal.SIGTERM)

forked.fork = fork
ahead._build = lambda *args: signal.pause()
run.prepare_rendering = terminated
sys.argv = ["kgen", "build", "-C", sys.argv[2]]
from kgen.__main__ import run
run()
"""


def test_sigterm_stops_and_reaps_the_child(tmp_path: Path) -> None:
    root = tmp_path / "project"
    generate(root, 12)
    pid_file = tmp_path / "child"
    env = {**os.environ, "KGEN_WORKERS": "2", "KGEN_CACHE_DIR": str(tmp_path / "c")}
    done = subprocess.run(
        [sys.executable, "-c", SIGTERMED, str(pid_file), str(root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert done.stdout == ""
    child = int(pid_file.read_text())
    # Stopped before the parent went: a child left to itself would pause for ever.
    assert not Path(f"/proc/{child}").exists()


def test_no_child_where_a_thread_runs_or_no_core_is_spare(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(parallel, "SPARE_CORE", True)
    assert forked.can_fork()
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not forked.can_fork()
    finally:
        stop.set()
        thread.join()
    monkeypatch.setattr(parallel, "SPARE_CORE", False)
    assert not forked.can_fork()


def test_a_core_is_spare_only_where_the_load_leaves_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(parallel, "_load", lambda: 0.2)
    monkeypatch.setenv("KGEN_WORKERS", "2")
    assert parallel.spare_core()
    monkeypatch.setenv("KGEN_WORKERS", "1")  # workers off: helpers too
    assert not parallel.spare_core()
    # Two workers asked for, but the machine is busy: no helper beside the parent.
    monkeypatch.setenv("KGEN_WORKERS", "2")
    monkeypatch.setattr(parallel, "_load", lambda: 1.0)
    assert not parallel.spare_core()
