"""The render cache written by a child while the build writes its tree (kgen.pipeline.
cache_aside): the same files, byte for byte, as a build that writes them itself; the
next run finds them; a child that fails or dies costs only the cache; and however the
build ends, its child is gone (reaped, never a zombie) when the command is.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgen.pipeline import cache as kgen_cache
from kgen.pipeline import cache_aside, parallel, run
from tests.conftest import REPO, RunKgen, files_below, no_hang

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import generate

# What a cold build of a generated project keeps (not the records of the tree and
# the job files: their stats are each copy's own).
KEPT = ("renders-", "texts-", "identities")


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Children on for any build that made a render (whatever the machine's load);
    the pid of each one forked."""
    monkeypatch.setattr(parallel, "spare_core", lambda: True)
    monkeypatch.setattr(cache_aside, "MIN_RENDERS", 1)
    pids: list[int] = []
    real = cache_aside.start

    def spy(folder: Path, save: object) -> bool:
        started = real(folder, save)  # type: ignore[arg-type]
        if started:
            assert cache_aside._child is not None
            pids.append(cache_aside._child.pid)
        return started

    monkeypatch.setattr(cache_aside, "start", spy)
    yield pids
    assert not cache_aside.pending()
    _no_children()


def _no_children() -> None:
    """This process has no child: each was reaped (a zombie is a child too)."""
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def _cache(root: Path) -> dict[str, bytes]:
    folder = kgen_cache.cache_folder(root)
    assert folder is not None
    return {
        name: data
        for name, data in files_below(folder).items()
        if name.startswith(KEPT) or name.startswith(".")
    }


def _project(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A generated project of 12 jobs (48 renders, in-process), with its own cache."""
    root = tmp_path / name
    generate(root, 12)
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / f"{name}-cache"))
    return root


def _renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    made: list[str] = []
    real = run.render_one

    def spy(job, env, *args):
        made.append(env.name)
        return real(job, env, *args)

    monkeypatch.setattr(run, "render_one", spy)
    return made


def test_the_childs_cache_is_the_one_written_in_process_and_is_used(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    forks: list[int],
) -> None:
    aside = _project(tmp_path, "aside", monkeypatch)
    first = run_kgen("build", "-C", str(aside))
    assert first.code == 0, first
    assert len(forks) == 1
    written = _cache(aside)
    assert any(name.startswith("renders-") for name in written)
    assert not [name for name in written if name.startswith(".")]  # nothing partial

    with monkeypatch.context() as inline:
        inline.setattr(cache_aside, "possible", lambda renders: False)
        plain = _project(tmp_path, "plain", monkeypatch)
        second = run_kgen("build", "-C", str(plain))
    assert len(forks) == 1
    assert (second.code, second.out, second.err) == (first.code, first.out, first.err)
    assert _cache(plain) == written
    assert files_below(plain / "manifests") == files_below(aside / "manifests")

    # The next run renders nothing: it reads what the child wrote.
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "aside-cache"))
    made = _renders(monkeypatch)
    check = run_kgen("build", "--check", "-C", str(aside))
    assert check.code == 0, check
    assert made == []
    assert len(forks) == 1  # nothing made, nothing to write: no child


def _failing(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """The child's save fails: by an exception, or killed half-way through a file."""

    def save(self: kgen_cache.Cache, *, whole: bool) -> None:
        assert self.folder is not None
        (self.folder / f".renders-00.{os.getpid()}.tmp").write_bytes(b"half")
        if how == "killed":
            os.kill(os.getpid(), signal.SIGKILL)
        raise RuntimeError("broken")

    monkeypatch.setattr(kgen_cache.Cache, "_save", save)


@pytest.mark.parametrize("how", ["raises", "killed"])
def test_a_child_that_fails_costs_only_the_cache(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    forks: list[int],
    how: str,
) -> None:
    root = _project(tmp_path, "project", monkeypatch)
    with monkeypatch.context() as broken:
        _failing(broken, how)
        with no_hang("a build whose cache child failed"):
            result = run_kgen("build", "-C", str(root))
    assert len(forks) == 1
    assert result.code == 0, result
    assert "48 renders): " in result.err
    _no_children()
    # Nothing of the cache, nor anything half-written: the next run is a cold one.
    assert _cache(root) == {}
    made = _renders(monkeypatch)
    again = run_kgen("build", "-C", str(root))
    assert again.code == 0, again
    assert len(made) == 48
    assert ": 0 files written, 0 removed, " in again.err


def test_a_failing_tree_write_waits_for_the_child(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    forks: list[int],
) -> None:
    root = _project(tmp_path, "project", monkeypatch)
    seen: list[bool] = []

    def write_tree(*args: object, **kwargs: object) -> None:
        seen.append(cache_aside.pending())
        raise RuntimeError("the disk went away")

    from kgen.commands import build

    monkeypatch.setattr(build, "write_tree", write_tree)
    result = run_kgen("build", "-C", str(root))
    assert result.code == 3
    assert "internal error: RuntimeError: the disk went away" in result.err
    assert seen == [True]  # the child was writing the cache then
    _no_children()
    # ... and it finished: the whole cache is there.
    assert any(name.startswith("renders-") for name in _cache(root))
    assert not [name for name in _cache(root) if name.startswith(".")]


def test_ctrl_c_stops_and_reaps_the_child(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    forks: list[int],
) -> None:
    root = _project(tmp_path, "project", monkeypatch)

    def slow(self: kgen_cache.Cache, *, whole: bool) -> None:
        assert self.folder is not None
        (self.folder / f".renders-00.{os.getpid()}.tmp").write_bytes(b"half")
        signal.pause()  # till it is stopped

    def interrupted(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGINT)

    from kgen.commands import build

    monkeypatch.setattr(kgen_cache.Cache, "_save", slow)
    monkeypatch.setattr(build, "write_tree", interrupted)
    with no_hang("a build interrupted while its child writes"):
        result = run_kgen("build", "-C", str(root))
    assert (result.code, result.err) == (130, "\nkgen: aborted\n")  # as always
    assert len(forks) == 1
    _no_children()
    assert _cache(root) == {}  # what the child left half-written is gone
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


SIGTERMED = """
import os, signal, sys
from pathlib import Path
from kgen.commands import build
from kgen.pipeline import cache, cache_aside, parallel

cache_aside.MIN_RENDERS = 1
parallel.spare_core = lambda: True
real, pid_file = cache_aside.start, Path(sys.argv[1])

def start(folder, save):
    started = real(folder, save)
    pid_file.write_text(str(cache_aside._child.pid))
    return started

def slow(self, *, whole):
    signal.pause()

def terminated(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)

cache_aside.start = start
cache.Cache._save = slow
build.write_tree = terminated
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
        [sys.executable, "-c", textwrap.dedent(SIGTERMED), str(pid_file), str(root)],
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


def test_no_child_where_a_thread_runs_or_for_a_few_renders(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(parallel, "spare_core", lambda: True)
    assert cache_aside.possible(cache_aside.MIN_RENDERS)
    assert not cache_aside.possible(cache_aside.MIN_RENDERS - 1)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not cache_aside.possible(cache_aside.MIN_RENDERS)
    finally:
        stop.set()
        thread.join()
    monkeypatch.setattr(parallel, "spare_core", lambda: False)
    assert not cache_aside.possible(cache_aside.MIN_RENDERS)


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


def _folder_is_a_file(folder: Path) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("not a folder")


def _folder_is_a_link(folder: Path) -> None:
    elsewhere = folder.parent / "elsewhere"
    elsewhere.mkdir(parents=True)
    folder.symlink_to(elsewhere)


def _fifos_planted(folder: Path) -> None:
    folder.mkdir(parents=True)
    for shard in range(64):
        os.mkfifo(folder / f"renders-{shard:02x}.pickle")
    os.mkfifo(folder / "identities.pickle")


@pytest.mark.parametrize(
    "plant", [_folder_is_a_file, _folder_is_a_link, _fifos_planted], ids=str
)
def test_a_hostile_cache_folder_costs_the_child_only_the_cache(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    forks: list[int],
    plant: object,
) -> None:
    said = []
    for name in ("aside", "plain"):
        root = _project(tmp_path, name, monkeypatch)
        folder = kgen_cache.cache_folder(root)
        assert folder is not None
        plant(folder)  # type: ignore[operator]
        with monkeypatch.context() as inline:
            if name == "plain":
                inline.setattr(cache_aside, "possible", lambda renders: False)
            with no_hang(f"a build with {plant}"):
                result = run_kgen("build", "-C", str(root))
        said.append((result.code, result.out, result.err))
        _no_children()
        assert list(folder.parent.rglob(".*.tmp")) == []  # nothing half-written
    assert said[0] == said[1]
    assert said[0][0] == 0
    assert len(forks) == 1


def test_what_the_build_reads_after_the_fork_is_what_the_child_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forks: list[int]
) -> None:
    """A later save or look-up in the parent waits for the child first, and finds
    the cache as a save in-process would have left it."""
    cache = kgen_cache.Cache(tmp_path / "cache")
    for n in range(4):
        cache.remember_texts(f"{n:02x}" + "0" * 62, (f"text {n}",))
    cache._made.add("00" + "0" * 62)
    cache._dirty.add("renders")
    cache.save(whole=False, aside=True)
    assert len(forks) == 1 and cache_aside.pending()
    assert cache.texts("01" + "0" * 62) == ("text 1",)  # read after the child ended
    assert not cache_aside.pending()
    cache.remember_texts("ff" + "0" * 62, ("late",))
    cache.save(whole=False)
    again = kgen_cache.Cache(tmp_path / "cache")
    assert [again.texts(f"{n:02x}" + "0" * 62) for n in (0, 3, 255)] == [
        ("text 0",),
        ("text 3",),
        ("late",),
    ]
