"""`kgen --version` is answered before the command line is imported (kgen.__main__),
so it ends as every other command does when its stdout cannot take the answer: a full
or missing stdout is an internal error (exit 3, one line), a closed pipe exits 1
quietly, as click does; never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

PREFIX = "kgen: internal error: "
SUFFIX = " (please report this as a bug)\n"


def _kgen(*args: str, **streams: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgen", *args],
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        check=False,
        **streams,
    )


def test_a_full_stdout_is_an_internal_error_without_a_traceback():
    with open("/dev/full", "w") as full:
        done = _kgen("--version", stdout=full)
    assert done.returncode == 3
    assert done.stderr == (
        f"{PREFIX}OSError: [Errno 28] No space left on device{SUFFIX}"
    )


def test_no_stdout_at_all_is_an_internal_error_like_validate():
    version = _kgen("-V", stdout=None, preexec_fn=_close_1)
    validate = _kgen("validate", "--format", "json", stdout=None, preexec_fn=_close_1)
    expected = (
        f"{PREFIX}AttributeError: 'NoneType' object has no attribute 'write'{SUFFIX}"
    )
    assert (version.returncode, version.stderr) == (3, expected)
    assert (validate.returncode, validate.stderr) == (3, expected)


def test_a_closed_pipe_exits_1_quietly():
    read, write = os.pipe()
    os.close(read)
    try:
        done = _kgen("--version", stdout=write)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (1, "")


def test_a_writable_stdout_gets_the_version():
    done = _kgen("--version", stdout=subprocess.PIPE)
    assert done.returncode == 0
    assert done.stdout.startswith("kgen, version ")
    assert done.stderr == ""


def _close_1() -> None:
    os.close(1)
