"""Colour (`--color`, NO_COLOR, TERM=dumb), progress on long terminal builds only, shell
completion of environment and job names, and fatal errors in the chosen format."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgen.report import terminal
from kgen.report.terminal import Progress
from tests.conftest import REPO, RunKgen

KGEN = Path(sys.executable).parent / "kgen"
BAD_JOB = "framework: pytorch\nimage: x:1\nroles: {master: {replicas: 2}}\n"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def bad_project(tmp_path: Path, run_kgen: RunKgen) -> Path:
    run_kgen("init", cwd=tmp_path)
    (tmp_path / "jobs/mnist.yaml").write_text(BAD_JOB)
    return tmp_path


def test_color_always_paints_even_into_a_pipe(bad_project: Path, run_kgen: RunKgen):
    painted = run_kgen("--color", "always", "validate", cwd=bad_project)
    assert "\033[1;31merror\033[0m" in painted.err
    plain = run_kgen("--color", "never", "validate", cwd=bad_project)
    assert "\033[" not in plain.err and ": error: " in plain.err


@pytest.mark.parametrize(
    ("env", "expected"),
    [({}, True), ({"NO_COLOR": "1"}, False), ({"TERM": "dumb"}, False)],
)
def test_color_auto_on_a_terminal(monkeypatch, env: dict[str, str], expected: bool):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    terminal.set_color("auto")
    assert terminal.use_color(Tty()) is expected
    assert terminal.use_color(io.StringIO()) is False


def test_color_flag_overrides_no_color(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    terminal.set_color("always")
    try:
        assert terminal.use_color(io.StringIO()) is True
    finally:
        terminal.set_color("auto")


def test_progress_waits_then_draws_on_one_line_and_clears(monkeypatch):
    clock = iter([0.0, 0.2, 0.6, 0.65, 0.8, 1.0])
    monkeypatch.setattr("kgen.report.terminal.time.monotonic", lambda: next(clock))
    stream = Tty()
    progress = Progress(stream)  # started at 0.0
    for done in (100, 200, 300, 400, 500):
        progress(done, 500)
    progress.finish()
    # 0.2: too early; 0.6: drawn; 0.65: too soon after; 0.8 drawn; 1.0: the last.
    assert stream.getvalue() == (
        "\r\033[Kkgen: rendering 200/500"
        "\r\033[Kkgen: rendering 400/500"
        "\r\033[Kkgen: rendering 500/500"
        "\r\033[K"
    )


@pytest.mark.parametrize(
    ("env", "tty", "expected"),
    [
        ({}, True, True),
        ({"CI": "true"}, True, False),
        ({"TERM": "dumb"}, True, False),
        ({}, False, False),
    ],
)
def test_progress_only_on_a_terminal_outside_ci(monkeypatch, env, tty, expected):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    stream = Tty() if tty else io.StringIO()
    assert Progress.wanted(stream) is expected


def test_a_build_in_a_log_prints_no_progress(bad_project: Path, run_kgen):
    (bad_project / "jobs/mnist.yaml").write_text(BAD_JOB.replace("2}}", "1}}"))
    result = run_kgen("build", cwd=bad_project)
    assert "\r" not in result.err and "rendering" not in result.err


def _complete(words: str, cwd: Path) -> list[str]:
    env = {
        **os.environ,
        "_KGEN_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split(" ")) - 1),
    }
    done = subprocess.run(
        [os.fspath(KGEN)], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return [line.split(",", 1)[1] for line in done.stdout.splitlines() if line]


def test_completion_offers_environments_and_jobs():
    assert _complete("kgen build --env kf0", REPO) == [
        "kf04-cpu",
        "kf04-gpu",
        "kf06-cpu",
        "kf06-gpu",
    ]
    assert _complete("kgen render --env dev-cpu mnist", REPO) == ["mnist-ddp"]
    assert _complete("kgen explain tf-", REPO) == ["tf-mwms", "tf-ps"]


def test_completion_outside_a_project_offers_nothing(tmp_path: Path):
    assert _complete("kgen build --env ", tmp_path) == []


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_a_fatal_error_comes_in_the_chosen_format(tmp_path, run_kgen, fmt: str):
    result = run_kgen("validate", "--format", fmt, cwd=tmp_path)
    assert result.code == 1 and result.err == ""
    body = json.loads(result.out)
    text = json.dumps(body)
    assert "no kgen.yaml in ." in text and "no-project" in text
