"""SIGTERM (a CI runner cancelling a job) or SIGHUP (a closed terminal) stops a command
that writes with nothing left behind: the old tree or the new one, no staging folder
or partial file beside it, no traceback, and the process dies of the signal."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import files_below
from tests.test_atomic import _make_project

SIGNALS = ["SIGTERM", "SIGHUP"]
# Each a share of a complete build's length: the early ones land while the renders
# are staged, the late ones around the swap or the renames, or after the end.
SWEEP = (0.1, 0.25, 0.4, 0.55, 0.7, 0.8, 0.9, 1.0)


def _set_job(root: Path, state: int) -> None:
    """One job's spec: a build between two states rewrites its two files in place."""
    path = root / "jobs" / "job-000.yaml"
    text = path.read_text()
    path.write_text(
        text.replace(f"VAR_0, value: '{1 - state}'", f"VAR_0, value: '{state}'")
    )


def _kgen(root: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "kgen", "--no-cache", *args, "-C", str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _complete(root: Path, *args: str) -> tuple[int, str, float]:
    start = time.monotonic()
    proc = _kgen(root, *args)
    err = proc.communicate(timeout=120)[1].decode()
    return proc.returncode, err, time.monotonic() - start


def _left(root: Path) -> list[str]:
    """What kgen made beside the inputs that is neither the output nor its lock."""
    inputs = {"kgen.yaml", "jobs", "overlays", "manifests", ".manifests.kgen-lock"}
    odd = [p.name for p in root.iterdir() if p.name not in inputs]
    return odd + [p.name for p in root.rglob("*") if ".kgen-new-" in p.name]


def _stop(proc: subprocess.Popen[bytes], number: int, after: float) -> str | None:
    """Send `number` `after` seconds in; the stderr of a build it stopped, else None
    (the build had finished: a signal sent to its exit is not acted on)."""
    time.sleep(after)
    proc.send_signal(number)
    err = proc.communicate(timeout=60)[1].decode()
    if proc.returncode == 0:
        return None
    assert proc.returncode == -number, err
    return err


@pytest.mark.parametrize("name", SIGNALS)
def test_a_stopped_cold_build_leaves_no_tree_or_the_new_one(tmp_path: Path, name: str):
    number = getattr(signal, name)
    root = _make_project(tmp_path / "p")
    code, err, took = _complete(root, "build")
    assert code == 0, err
    new = files_below(root / "manifests")
    durations = [took]
    stopped = []
    for share in SWEEP:
        _remove_output(root)
        proc = _kgen(root, "build")
        err_or_none = _stop(proc, number, share * statistics.median(durations))
        assert _left(root) == [], f"left behind at {share}"
        built = (root / "manifests").exists()
        assert not built or files_below(root / "manifests") == new, share
        code, check, _ = _complete(root, "build", "--check")
        assert code == (0 if built else 1), check
        if err_or_none is not None:
            assert "Traceback" not in err_or_none, err_or_none
            stopped.append("new" if built else "none")
    assert "none" in stopped, stopped


@pytest.mark.parametrize("name", SIGNALS)
def test_a_stopped_rebuild_leaves_the_old_tree_or_the_new_one(
    tmp_path: Path, name: str
):
    number = getattr(signal, name)
    root = _make_project(tmp_path / "p")
    trees = {}
    durations = []
    for state in (1, 0):
        _set_job(root, state)
        code, err, took = _complete(root, "build")
        assert code == 0, err
        trees[state] = files_below(root / "manifests")
        durations.append(took)
    assert trees[0] != trees[1]
    stopped = []
    state = 0
    for share in SWEEP:
        old, state = state, 1 - state
        _set_job(root, state)
        proc = _kgen(root, "build")
        err_or_none = _stop(proc, number, share * statistics.median(durations))
        assert _left(root) == [], f"left behind at {share}"
        now = files_below(root / "manifests")
        assert now in (trees[old], trees[state]), f"a mixed tree at {share}"
        code, check, _ = _complete(root, "build", "--check")
        assert code == (0 if now == trees[state] else 1), check
        if err_or_none is not None:
            assert "Traceback" not in err_or_none, err_or_none
            stopped.append("new" if now == trees[state] else "old")
        code, err, took = _complete(root, "build")  # the tree for the next round
        assert code == 0, err
        durations.append(took)
    assert "old" in stopped, stopped


def _remove_output(root: Path) -> None:
    import shutil

    shutil.rmtree(root / "manifests", ignore_errors=True)


# Runs kgen with one of its functions wrapped: after its COUNT-th call returns, the
# process sends itself SIGNAL, as a CI runner would at that very moment.
HOOKED = """
import builtins, importlib, os, sys
module, name, count, number = sys.argv[1:5]
target = importlib.import_module(module)
original = getattr(target, name, None) or getattr(builtins, name)
calls = []

def hooked(*args, **kwargs):
    result = original(*args, **kwargs)
    calls.append(1)
    if len(calls) == int(count):
        os.kill(os.getpid(), int(number))
    return result

setattr(target, name, hooked)
sys.argv = ["kgen", *sys.argv[5:]]
from kgen.__main__ import run
run()
"""


def _hooked(
    where: str,
    count: int,
    number: int,
    *args: str,
    cwd: Path,
    nohup: bool = False,
    cache: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    module, _, name = where.rpartition(".")
    env = {**os.environ, "KGEN_NO_CACHE": "1"}
    if cache is not None:
        env = {**os.environ, "KGEN_CACHE_DIR": str(cache)}
        env.pop("KGEN_NO_CACHE", None)
    return subprocess.run(
        [sys.executable, "-c", HOOKED, module, name, str(count), str(number), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env=env,
        # As `nohup` starts it: SIGHUP ignored.
        preexec_fn=_ignore_sighup if nohup else None,
    )


def _ignore_sighup() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


@pytest.mark.parametrize("name", SIGNALS)
@pytest.mark.parametrize(
    ("where", "count"),
    [
        ("kgen.output.spool.write_new", 1),  # the first render's text staged
        ("kgen.output.spool.write_new", 100),  # the last ones
        ("kgen.output.atomic.open_staging", 1),  # the staging folder made
        ("kgen.output.atomic._exchange", 1),  # swapped: the old tree beside it
    ],
)
def test_a_build_stopped_at_each_step_leaves_nothing_staged(
    tmp_path: Path, name: str, where: str, count: int
):
    number = getattr(signal, name)
    root = _make_project(tmp_path / "p")
    _set_job(root, 1)
    assert _complete(root, "build")[0] == 0
    old = files_below(root / "manifests")
    (root / "overlays" / "tag.yaml").write_text("patch:\n  image: repo/train:2\n")
    stopped = _hooked(where, count, number, "build", cwd=root)
    assert stopped.returncode == -number, stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert _left(root) == []
    now = files_below(root / "manifests")
    swapped = where.endswith("_exchange")
    assert (now != old) if swapped else (now == old)
    code, err, _ = _complete(root, "build", "--check")
    assert code == (0 if swapped else 1), err


@pytest.mark.parametrize("name", SIGNALS)
def test_a_stopped_init_leaves_no_partial_file(tmp_path: Path, name: str):
    number = getattr(signal, name)
    folder = tmp_path / "p"
    folder.mkdir()
    stopped = _hooked("kgen.output.generated.write_new", 2, number, "init", cwd=folder)
    assert stopped.returncode == -number, stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert [p for p in folder.rglob("*") if ".kgen-new-" in p.name] == []


@pytest.mark.parametrize("name", SIGNALS)
def test_a_stopped_import_leaves_no_project(tmp_path: Path, name: str):
    number = getattr(signal, name)
    root = _make_project(tmp_path / "p")
    assert _complete(root, "build")[0] == 0
    inputs = sorted(str(p.relative_to(root)) for p in root.glob("manifests/a/*.yaml"))
    inputs = [p for p in inputs if "pytorchjob" in p][:5]
    assert inputs
    out = root / "imported"
    stopped = _hooked(
        "kgen.output.import_folder.write_new",
        3,
        number,
        "import",
        *inputs,
        "--out",
        "imported",
        cwd=root,
    )
    assert stopped.returncode == -number, stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert not out.exists()


def test_a_build_under_nohup_goes_on_after_sighup(tmp_path: Path):
    root = _make_project(tmp_path / "p")
    finished = _hooked(
        "kgen.output.spool.write_new", 1, signal.SIGHUP, "build", cwd=root, nohup=True
    )
    assert finished.returncode == 0, finished.stderr
    assert _left(root) == []
    assert _complete(root, "build", "--check")[0] == 0


def test_a_stopped_build_leaves_no_partial_file_in_the_cache(tmp_path: Path):
    root = _make_project(tmp_path / "p")
    cache = tmp_path / "cache"
    stopped = _hooked(
        "kgen.pipeline.cache_file.open",
        1,
        signal.SIGTERM,
        "build",
        cwd=root,
        cache=cache,
    )
    assert stopped.returncode == -signal.SIGTERM, stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert [p.name for p in cache.rglob("*.tmp")] == []


# SIGTERM while init writes, then Ctrl-C as it removes what it wrote.
TERM_THEN_INT = """
import os, signal, sys
import kgen.commands.init as init
import kgen.output.generated as generated

real_write, real_undo = generated.write_new, init._undo
calls = []

def write_new(*args, **kwargs):
    real_write(*args, **kwargs)
    calls.append(1)
    if len(calls) == 3:
        os.kill(os.getpid(), signal.SIGTERM)

def undo(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGINT)
    real_undo(*args, **kwargs)

generated.write_new, init._undo = write_new, undo
sys.argv = ["kgen", "init", "project"]
from kgen.__main__ import run
run()
"""


# Ctrl-C while init writes, then SIGTERM as it removes what it wrote.
INT_THEN_TERM = (
    TERM_THEN_INT.replace("SIGTERM", "<FIRST>")
    .replace("SIGINT", "SIGTERM")
    .replace("<FIRST>", "SIGINT")
)


@pytest.mark.parametrize(
    ("script", "ends"),
    [
        # SIGTERM, then Ctrl-C: the process dies of the first (kgen.stopping).
        (TERM_THEN_INT, (-signal.SIGTERM, "")),
        # Ctrl-C, then SIGTERM: the command ends as aborted.
        (INT_THEN_TERM, (130, "\nkgen: aborted\n")),
    ],
    ids=["term-then-int", "int-then-term"],
)
def test_a_second_signal_during_the_clean_up_is_ignored(
    tmp_path: Path, script: str, ends: tuple[int, str]
):
    stopped = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        env={**os.environ, "KGEN_NO_CACHE": "1"},
    )
    assert (stopped.returncode, stopped.stderr) == ends
    assert os.listdir(tmp_path) == []


# As HOOKED, but what the signal interrupts turns Stopped into another exception, as
# pydantic-core does when it arrives while a validator is built (a SchemaError).
WRAPPED = HOOKED.replace(
    "        os.kill(os.getpid(), int(number))\n",
    "        try:\n"
    "            os.kill(os.getpid(), int(number))\n"
    "            sum(range(1000))\n"
    "        except BaseException as stop:\n"
    "            raise RuntimeError('wrapped') from stop\n",
)


@pytest.mark.parametrize("name", SIGNALS)
def test_a_stop_another_exception_wraps_still_stops_the_build(
    tmp_path: Path, name: str
):
    number = getattr(signal, name)
    root = _make_project(tmp_path / "p")
    assert WRAPPED != HOOKED
    args = (str(number), "build")
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPED, "kgen.output.spool", "write_new", "1", *args],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
        env={**os.environ, "KGEN_NO_CACHE": "1"},
    )
    # It was an internal error (exit 3) with the staging folder left.
    assert proc.returncode == -number, proc.stderr
    assert proc.stderr == ""
    assert [p.name for p in root.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize(
    "args",
    [
        ("validate",),  # kgen.cli_quick's path
        ("validate", "jobs/job-000.yaml"),
        ("list",),
        ("diff",),
        ("explain", "-e", "a", "job-000"),
        ("argocd", "--check"),
        ("build", "--check"),
        ("build",),
    ],
    ids=" ".join,
)
def test_a_ctrl_c_another_exception_wraps_still_aborts_the_command(
    tmp_path: Path, args: tuple[str, ...]
):
    root = _make_project(tmp_path / "p")
    hook = ("kgen.load.files", "read_input", "1", str(int(signal.SIGINT)))
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPED, *hook, *args],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
        env={**os.environ, "KGEN_NO_CACHE": "1"},
    )
    # It was an internal error (exit 3): "RuntimeError: wrapped".
    assert (proc.returncode, proc.stderr) == (130, "\nkgen: aborted\n")
    assert [p.name for p in root.iterdir() if p.name.startswith(".")] == []
