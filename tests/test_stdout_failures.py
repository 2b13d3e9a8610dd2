"""A standard output that cannot take what kgen prints is the machine's trouble, not a
bug in kgen: one line that says so and exit 1, for every command that prints, as a full
disk under the output folder is (kgen.cli_guard, kgen.cli_stdout). A closed pipe exits 1
quietly, as click does. Any other OSError is still a bug (exit 3). Never a traceback.

`kgen --version` is answered before the command line is imported (kgen.__main__), so it
is tested on its own as well. These run the real command: under a test runner standard
output is not descriptor 1.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, RunKgen, copy_example

FULL = "kgen: error: cannot write to standard output: No space left on device\n"
NONE = (
    "kgen: error: cannot write to standard output: "
    "the process has none (descriptor 1 is closed)\n"
)
# Every command that prints to standard output, each in the repository's own project;
# `build` and `validate` print machine formats there.
PRINTING = [
    ("--version",),
    ("-V",),
    ("--help",),
    ("list",),
    ("plan",),
    ("render", "mnist-ddp", "--env", "dev-cpu"),
    ("explain", "mnist-ddp", "--env", "dev-cpu"),
    ("validate", "--format", "json"),
    ("validate", "jobs/mnist-ddp.yaml", "--format", "sarif"),
    ("build", "--check", "--format", "junit"),
    ("init", "--help"),
]


def _kgen(
    *args: str, cwd: Path = REPO, **streams: Any
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgen", *args],
        cwd=cwd,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
        **streams,
    )


@pytest.mark.parametrize("args", PRINTING, ids=" ".join)
def test_a_full_stdout_is_one_line_and_exit_1(args: tuple[str, ...], tmp_path: Path):
    with open("/dev/full", "w") as full:
        done = _kgen(
            *args, stdout=full, env={**os.environ, "KGEN_CACHE_DIR": str(tmp_path)}
        )
    assert done.returncode == 1, done.stderr
    assert done.stderr.endswith(FULL), done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize(
    "args", [("-V",), ("list",), ("validate", "--format", "json")], ids=" ".join
)
def test_no_stdout_at_all_is_one_line_and_exit_1(args: tuple[str, ...], tmp_path: Path):
    done = _kgen(
        *args,
        stdout=None,
        preexec_fn=_close_1,
        env={**os.environ, "KGEN_CACHE_DIR": str(tmp_path)},
    )
    assert (done.returncode, done.stderr[-len(NONE) :]) == (1, NONE), done.stderr
    assert "Traceback" not in done.stderr


def test_a_closed_pipe_exits_1_quietly():
    read, write = os.pipe()
    os.close(read)
    try:
        version = _kgen("--version", stdout=write)
        listed = _kgen("list", stdout=write)
    finally:
        os.close(write)
    assert (version.returncode, version.stderr) == (1, "")
    assert (listed.returncode, listed.stderr) == (1, "")


def test_a_writable_stdout_gets_the_version():
    done = _kgen("--version", stdout=subprocess.PIPE)
    assert done.returncode == 0
    assert done.stdout.startswith("kgen, version ")
    assert done.stderr == ""


def test_a_full_stdout_keeps_the_exit_code_of_what_went_before(tmp_path: Path):
    """A failed write ends the command, whatever it found: exit 1 either way."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "kgen.yaml").write_text("environments: {dev: {}}\n")
    (project / "jobs").mkdir()
    (project / "jobs" / "bad.yaml").write_text("framework: nope\n")
    with open("/dev/full", "w") as full:
        done = _kgen("validate", "--format", "json", cwd=project, stdout=full)
    assert done.returncode == 1
    assert done.stderr.endswith(FULL)


def test_other_os_errors_are_still_a_bug(
    run_kgen: RunKgen, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Only standard output's own failure is the machine's: an OSError from anywhere
    else, with the same errno, is an internal error."""

    def boom(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("kgen.commands.outcome.run", boom)
    result = run_kgen("validate", cwd=copy_example(tmp_path / "p"))
    assert result.code == 3
    assert result.err == (
        "kgen: internal error: OSError: [Errno 28] No space left on device "
        "(please report this as a bug)\n"
    )


def _close_1() -> None:
    os.close(1)
