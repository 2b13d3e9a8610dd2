"""The children a build forks (kgen.pipeline.forked): stopped and reaped however the
parent is stopped, their answer within a limit, nothing of the parent's in them; and
no process or zombie left after any test here."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgen.output import early_scan
from kgen.pipeline import forked, parallel
from tests.conftest import REPO, RunKgen
from tests.warm_cold import built_pair

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import edit_spec, generate


def _gone(pid: int) -> bool:
    """Whether `pid` is neither running nor a zombie."""
    return not Path(f"/proc/{pid}").exists()


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The pid of every process the test forks; each must be gone (reaped) at its
    end. One left running is killed, so that the failure is the test's alone."""
    pids: list[int] = []
    fork = os.fork

    def counted() -> int:
        pid = fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", counted)
    yield pids
    left = [pid for pid in pids if not _gone(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert left == []
    with pytest.raises(ChildProcessError):  # no zombie of any other child either
        os.waitpid(-1, os.WNOHANG)


def _warm(tmp_path: Path, run_kgen: RunKgen) -> Path:
    """A built project of 4 jobs, aged, its tree recorded, one spec edited."""
    warm, _cold = built_pair(tmp_path, run_kgen, lambda root: generate(root, 4))
    assert run_kgen("build", "--check", "-C", str(warm)).code == 0
    edit_spec(warm, 2, 9)
    return warm


def test_ctrl_c_while_the_build_waits_for_its_early_scan_stops_and_reaps_it(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    early_scans: list[bool],
    forks: list[int],
) -> None:
    warm = _warm(tmp_path, run_kgen)
    forks.clear()
    monkeypatch.setattr(early_scan, "_child", lambda *args: signal.pause())
    take = early_scan.take

    def interrupted_while_waiting(*args: object) -> object:
        # Ctrl-C a moment after the build starts waiting for the child's answer.
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        return take(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(early_scan, "take", interrupted_while_waiting)
    previous = signal.signal(
        signal.SIGALRM, lambda *args: signal.raise_signal(signal.SIGINT)
    )
    try:  # (no no_hang here: it takes SIGALRM; the wait ends by WAIT_S anyway)
        result = run_kgen("build", "-C", str(warm))
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert (result.code, result.err) == (130, "\nkgen: aborted\n")  # as always
    assert len(forks) == 1 and _gone(forks[0])
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert early_scans == []


STOPPED = """
import os, signal, sys
from pathlib import Path
from kgen.output import early_scan
from kgen.pipeline import forked, parallel
from kgen.pipeline import parallel

parallel.SPARE_CORE = True
early_scan.MIN_FILES = 1
early_scan.WAIT_S = 60
pids, number = Path(sys.argv[1]), int(sys.argv[2])
fork = os.fork

def counted():
    pid = fork()
    if pid:
        with pids.open("a") as handle:
            handle.write(f"{pid}\\n")
    return pid

def stopped(*args):
    os.kill(os.getpid(), number)

os.fork = counted
early_scan._child = lambda *args: signal.pause()
early_scan.take = stopped
sys.argv = ["kgen", "build", "-C", sys.argv[3]]
from kgen.__main__ import run
run()
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_sigterm_or_sighup_stops_and_reaps_the_early_scan(
    name: str, tmp_path: Path, run_kgen: RunKgen, forks: list[int]
) -> None:
    warm = _warm(tmp_path, run_kgen)
    number = getattr(signal, name)
    pids = tmp_path / "pids"
    env = {**os.environ, "KGEN_WORKERS": "2"}
    out, err = tmp_path / "out", tmp_path / "err"
    # Into files: a child left running would hold a pipe open after the parent.
    with out.open("wb") as stdout, err.open("wb") as stderr:
        code = subprocess.run(
            [sys.executable, "-c", STOPPED, str(pids), str(number), str(warm)],
            env=env,
            stdout=stdout,
            stderr=stderr,
            timeout=60,
        ).returncode
    children = [int(line) for line in pids.read_text().split()]
    left = [pid for pid in children if not _gone(pid)]
    for pid in left:  # a child left to itself would pause for ever
        os.kill(pid, signal.SIGKILL)
    assert (code, out.read_text()) == (-number, ""), err.read_text()
    assert len(children) == 1
    assert left == []  # stopped and reaped before the parent went


def test_a_busy_machine_gets_no_early_scan_whatever_kgen_workers_asks(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    early_scans: list[bool],
    forks: list[int],
) -> None:
    warm = _warm(tmp_path, run_kgen)
    forks.clear()
    monkeypatch.setattr(parallel, "SPARE_CORE", None)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(parallel, "_load", lambda: 1.5)  # one core busy elsewhere
    assert os.environ["KGEN_WORKERS"] == "2"
    started = time.monotonic()
    assert run_kgen("build", "-C", str(warm)).code == 0
    assert time.monotonic() - started < 30
    assert forks == [] and early_scans == []


def _fails() -> bytes:
    raise RuntimeError("broken")


def _paused() -> None:
    signal.pause()


def test_the_answer_comes_back_within_its_limit(forks: list[int]) -> None:
    child = forked.fork(lambda: b"x" * 100, None, answer_limit=100)
    assert child is not None and child.answer(within=60, limit=100) == b"x" * 100
    too_long = forked.fork(lambda: b"x" * 101, None, answer_limit=100)
    assert too_long is not None and too_long.answer(within=60) is None
    failed = forked.fork(_fails, None, answer_limit=100)
    assert failed is not None and failed.answer(within=60) is None
    assert [c.status for c in (child, too_long, failed)] == [0, 1, 1]
    assert forked._running == []


def test_a_child_not_done_in_time_is_stopped_and_its_partials_removed(
    tmp_path: Path, forks: list[int]
) -> None:
    def half_written() -> bytes:
        (tmp_path / f".schema.json.{os.getpid()}.tmp").write_bytes(b"half")
        (tmp_path / "done").write_bytes(b"")
        signal.pause()
        return b""

    child = forked.fork(half_written, tmp_path, answer_limit=100)
    assert child is not None
    while not (tmp_path / "done").exists():
        time.sleep(0.01)
    assert not child.ended()
    assert child.answer(within=0.01) is None
    assert child.status == -signal.SIGKILL and child.ended()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["done"]


def _inside() -> bytes:
    """What a child has of its parent: its streams, descriptors and handlers."""
    streams = [os.readlink(f"/proc/self/fd/{fd}") for fd in (0, 1, 2)]
    handlers = [signal.getsignal(number) for number in forked._SIGNALS]
    os.write(1, b"never seen")  # into /dev/null
    fds = sorted(int(name) for name in os.listdir("/proc/self/fd"))
    return repr((streams, handlers == [signal.SIG_IGN] * 3, fds)).encode()


def test_a_child_has_nothing_of_its_parent_but_what_it_is_given(
    tmp_path: Path, forks: list[int], capfd: pytest.CaptureFixture[str]
) -> None:
    kept = os.open(tmp_path, os.O_RDONLY)
    other = os.open(tmp_path, os.O_RDONLY)
    try:
        child = forked.fork(_inside, None, keep=(kept,), answer_limit=1 << 16)
        assert child is not None
        answer = child.answer(within=60)
    finally:
        os.close(kept)
        os.close(other)
    assert answer is not None
    streams, ignored, fds = ast.literal_eval(answer.decode())
    assert streams == [os.devnull] * 3 and ignored
    # 0-2, the kept folder, the answer's pipe, and the listing of /proc/self/fd.
    assert kept in fds and other not in fds and len(fds) == 6
    assert capfd.readouterr() == ("", "")


def test_ctrl_c_while_waiting_for_a_child_stops_and_reaps_it(
    forks: list[int],
) -> None:
    child = forked.fork(_paused, None)
    assert child is not None
    previous = signal.signal(
        signal.SIGALRM, lambda *args: signal.raise_signal(signal.SIGINT)
    )
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(KeyboardInterrupt):
            child.wait()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert child.status == -signal.SIGKILL and forked._running == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _handlers(item: int) -> str:
    return f"{signal.getsignal(signal.SIGINT)!r} {len(forked._running)}"


def test_a_pool_forked_while_a_child_runs_has_the_handlers_as_before(
    monkeypatch: pytest.MonkeyPatch, forks: list[int]
) -> None:
    """A worker's Ctrl-C ends it as before: it never stops (SIGKILLs) a child that
    is its parent's, nor waits for it."""
    monkeypatch.setenv("KGEN_WORKERS", "2")
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 2)
    child = forked.fork(_paused, None)
    assert child is not None
    try:
        seen = set(parallel.map_units(_handlers, range(8)))
        assert parallel.pool_size(8) == 2
    finally:
        child.stop()
    assert seen == {f"{signal.default_int_handler!r} 0"}


HELD = """
import signal
from kgen.output.held_signals import held
from kgen.pipeline import forked

child = forked.fork(lambda: None, None)
with held():  # notes signals, then sets back the handlers it found: forked's
    child.wait()  # the last child: forked's handlers are gone
try:
    signal.raise_signal(signal.SIGINT)
except KeyboardInterrupt:
    print("interrupted")
"""


def test_ctrl_c_after_the_last_child_is_reaped_under_held_signals_is_as_before():
    done = subprocess.run(
        [sys.executable, "-c", HELD], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (0, "interrupted\n"), done.stderr
