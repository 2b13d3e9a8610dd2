"""The `kgen` command ends without the interpreter's teardown (kgen.cli_exit), and
nobody can tell but by the clock: the same output, exit code and atexit handlers; and
where that cannot be promised (another thread, a pipe closed under it) it ends as any
Python program does."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

from kgen import cli_exit

# Stands in for kgen.__main__.main: it prints, leaves an object that says when it is
# freed, registers an atexit handler, and returns CODE.
STUB = """
import atexit, sys, threading, time
import kgen.__main__
from kgen.cli_exit import keep

class Loud:
    def __init__(self, name):
        self.name = name
    def __del__(self):
        sys.stderr.write("freed " + self.name + "\\n")

def main():
    sys.stdout.write("out")  # left in the buffer: the exit must flush it
    sys.stderr.write("err\\n")
    atexit.register(lambda: sys.stdout.write(" atexit"))
    keep(Loud("kept"))
    global left
    left = Loud("global")
    if THREAD:
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
    return CODE

kgen.__main__.main = main
"""
AS_INSTALLED = "from kgen.__main__ import run; run()"
# run() also has standard output say when it fails (kgen.cli_stdout); so does this.
PLAIN = (
    "import sys, kgen.__main__, kgen.cli_stdout; kgen.cli_stdout.watch_stdout(); "
    "sys.exit(kgen.__main__.main())"
)


def _run(
    end: str, *, code: int = 0, thread: bool = False, **kwargs: object
) -> subprocess.CompletedProcess[str]:
    script = f"CODE = {code}\nTHREAD = {thread}\n{STUB}\n{end}\n"
    # Output buffered, as it is by default: the exit is what writes it.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        text=True,
        timeout=60,
        **kwargs,  # type: ignore[call-overload]
    )


@pytest.mark.parametrize("code", [0, 1, 3])
def test_the_command_ends_with_its_output_code_and_handlers_but_no_teardown(
    code: int,
):
    done = _run(AS_INSTALLED, code=code, capture_output=True)
    assert (done.returncode, done.stdout, done.stderr) == (code, "out atexit", "err\n")
    # The same program ended by the interpreter frees both objects on its way out.
    plain = _run(PLAIN, code=code, capture_output=True)
    assert (plain.returncode, plain.stdout) == (code, "out atexit")
    assert "freed global" in plain.stderr


def test_with_another_thread_running_the_interpreter_ends_it():
    done = _run(AS_INSTALLED, code=1, thread=True, capture_output=True)
    assert (done.returncode, done.stdout) == (1, "out atexit")
    assert "freed kept" in done.stderr and "freed global" in done.stderr


def test_a_closed_pipe_at_the_end_is_reported_as_python_reports_it():
    # The reader is gone before the command's last output is flushed: Python says so
    # and exits 120; so does the command.
    read, write = os.pipe()
    os.close(read)
    try:
        done = _run(AS_INSTALLED, stdout=write, stderr=subprocess.PIPE)
        plain = _run(PLAIN, stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert done.returncode == plain.returncode == 120
    assert "BrokenPipeError" in done.stderr
    assert done.stderr.replace("freed kept\n", "") == plain.stderr.replace(
        "freed kept\n", ""
    )


def test_a_profiled_command_ends_as_usual(tmp_path: Path):
    # cProfile writes its file after the program: the command must get that far.
    out = tmp_path / "profile.out"
    script = tmp_path / "command.py"
    script.write_text(f"CODE = 1\nTHREAD = False\n{STUB}\n{AS_INSTALLED}\n")
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), str(script)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout == "out atexit", done.stderr  # (cProfile drops the exit code)
    assert out.stat().st_size > 0


class _Kept:
    pass


def test_unarmed_keep_holds_nothing(monkeypatch: pytest.MonkeyPatch):
    # main() called in-process (tests, tools) frees what a command made, as before.
    monkeypatch.setattr(cli_exit, "_kept", [])
    kept = _Kept()
    gone = weakref.ref(kept)
    cli_exit.keep(kept)
    del kept
    gc.collect()
    assert gone() is None
    monkeypatch.setattr(cli_exit, "_armed", True)
    held = _Kept()
    cli_exit.keep(held)
    assert cli_exit._kept == [held]


def test_python_m_kgen_ends_so_and_a_program_running_it_gets_the_exit(
    tmp_path: Path,
):
    # An object made at start-up (sitecustomize) says when the interpreter frees it.
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class Loud:\n"
        "    def __del__(self):\n"
        "        sys.stderr.write('freed\\n')\n"
        "loud = Loud()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-m", "kgen", "--version"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout.startswith("kgen, version ")
    # runpy from another program: SystemExit comes back, and the program goes on.
    script = (
        "import runpy, sys\n"
        "sys.argv = ['kgen', '--version']\n"
        "try:\n    runpy.run_module('kgen', run_name='__main__')\n"
        "except SystemExit as exc:\n    print('exit', exc.code)\n"
    )
    hosted = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert hosted.stdout.endswith("exit 0\n") and hosted.stderr == "freed\n"
    repo = Path(__file__).resolve().parent.parent
    assert 'kgen = "kgen.__main__:run"' in (repo / "pyproject.toml").read_text()
