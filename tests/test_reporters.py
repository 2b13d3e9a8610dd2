from __future__ import annotations

import io

import pytest

from kgen.errors import Problem
from kgen.reporters import ParsableReporter, TextReporter, summary

PROBLEMS = [
    Problem(
        "unknown key 'workers'",
        "unknown-key",
        file="jobs/a.yaml",
        line=5,
        column=3,
        hint="did you mean 'worker'?",
    ),
    Problem(
        "backoffLimit cannot be expressed",
        "target-unsupported-field",
        file="jobs/b.yaml",
        line=2,
        column=17,
        context="environment old",
    ),
    Problem(
        "image without a tag",
        "image-latest",
        file="jobs/b.yaml",
        line=3,
        column=8,
        severity="warning",
    ),
]


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_text_reporter_exact_output(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    stream = io.StringIO()
    TextReporter(stream=stream).report(PROBLEMS)
    assert stream.getvalue() == (
        "jobs/a.yaml:5:3: error: unknown key 'workers' (unknown-key)\n"
        "    hint: did you mean 'worker'?\n"
        "jobs/b.yaml:2:17: error: backoffLimit cannot be expressed (target-unsupported-field)\n"
        "    in environment old\n"
        "jobs/b.yaml:3:8: warning: image without a tag (image-latest)\n"
        "kgen: 2 errors and 1 warning in 2 files\n"
    )


def test_text_reporter_colours_only_a_terminal_without_no_color(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.delenv("NO_COLOR", raising=False)
    tty = _Tty()
    TextReporter(stream=tty).report(PROBLEMS[:1])
    assert tty.getvalue().startswith(
        "\033[1mjobs/a.yaml:5:3\033[0m: \033[1;31merror\033[0m: unknown key"
    )
    monkeypatch.setenv("NO_COLOR", "1")
    plain = _Tty()
    TextReporter(stream=plain).report(PROBLEMS[:1])
    assert "\033" not in plain.getvalue()


def test_parsable_reporter_exact_output():
    stream = io.StringIO()
    ParsableReporter(stream=stream).report(PROBLEMS)
    assert stream.getvalue() == (
        "jobs/a.yaml:5:3: [error] unknown key 'workers' (unknown-key)\n"
        "jobs/b.yaml:2:17: [error] backoffLimit cannot be expressed (target-unsupported-field)\n"
        "jobs/b.yaml:3:8: [warning] image without a tag (image-latest)\n"
    )


def test_nothing_to_report_prints_nothing():
    stream = io.StringIO()
    TextReporter(stream=stream).report([])
    assert stream.getvalue() == ""


def test_summary_counts():
    assert summary(PROBLEMS[:1]) == "kgen: 1 error in 1 file"
