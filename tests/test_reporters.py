from __future__ import annotations

import io
from dataclasses import replace

import pytest

from kgen.errors import Problem
from kgen.report.base import summary
from kgen.report.text import ParsableReporter, TextReporter

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


def _render(
    name: str, problems=PROBLEMS, checked=("kgen.yaml", "jobs/a.yaml", "jobs/b.yaml")
) -> str:
    from kgen.report.formats import REPORTERS

    stream = io.StringIO()
    REPORTERS[name](stream=stream).report(problems, checked=list(checked))
    return stream.getvalue()


def test_json_reporter_exact_output():
    import json

    document = json.loads(_render("json"))
    assert document["errors"] == 2 and document["warnings"] == 1
    assert document["checked"] == ["kgen.yaml", "jobs/a.yaml", "jobs/b.yaml"]
    assert document["problems"][1] == {
        "file": "jobs/b.yaml",
        "line": 2,
        "column": 17,
        "severity": "error",
        "code": "target-unsupported-field",
        "message": "backoffLimit cannot be expressed",
        "hint": None,
        "context": "environment old",
        "field": None,
    }


def test_github_reporter_exact_output():
    warning_first = [PROBLEMS[2], PROBLEMS[0]]
    assert _render("github", warning_first) == (
        "::error file=jobs/a.yaml,line=5,col=3,title=kgen (unknown-key)::unknown key 'workers'%0Adid you mean 'worker'?\n"
        "::warning file=jobs/b.yaml,line=3,col=8,title=kgen (image-latest)::image without a tag\n"
        "kgen: 1 error and 1 warning in 2 files\n"
    )


def test_github_reporter_escapes_and_notes_the_annotation_limit():
    many = [
        Problem(
            f"bad: 100%, line\n{i}",
            "invalid-value",
            file="jobs/a,b.yaml",
            line=i,
            column=1,
        )
        for i in range(1, 12)
    ]
    out = _render("github", many).splitlines()
    assert (
        out[0]
        == "::error file=jobs/a%2Cb.yaml,line=1,col=1,title=kgen (invalid-value)::bad: 100%25, line\\x0a1"
    )
    assert (
        out[-1]
        == "kgen: GitHub shows 10 annotations of each kind; all are listed in this log"
    )


def test_sarif_reporter_structure_and_stable_fingerprints():
    import json

    from kgen.rules.catalog import RULES

    log = json.loads(_render("sarif"))
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(RULES)
    first = run["results"][0]
    assert first["ruleId"] == "unknown-key"
    assert rules[first["ruleIndex"]]["id"] == "unknown-key"
    assert first["level"] == "error"
    assert (
        first["message"]["text"] == "unknown key 'workers' Hint: did you mean 'worker'?"
    )
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "jobs/a.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 5, "startColumn": 3},
    }
    moved = [replace(PROBLEMS[0], line=50)]
    again = json.loads(_render("sarif", moved))["runs"][0]["results"][0]
    assert again["partialFingerprints"] == first["partialFingerprints"], (
        "line moves keep identity"
    )
    assert len(first["partialFingerprints"]["kgenProblem/v1"]) == 32


def test_junit_reporter_exact_output():
    assert _render("junit") == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="kgen">\n'
        '  <testsuite name="kgen" tests="3" failures="2" errors="0" skipped="0">\n'
        '    <testcase classname="kgen" name="jobs/a.yaml">\n'
        "      <failure type=\"unknown-key\" message=\"unknown key 'workers'\">jobs/a.yaml:5:3: [error] unknown key 'workers' (unknown-key)\n"
        "hint: did you mean 'worker'?</failure>\n"
        "    </testcase>\n"
        '    <testcase classname="kgen" name="jobs/b.yaml">\n'
        '      <failure type="target-unsupported-field" message="backoffLimit cannot be expressed">jobs/b.yaml:2:17: [error] backoffLimit cannot be expressed (target-unsupported-field)</failure>\n'
        "      <system-out>jobs/b.yaml:3:8: [warning] image without a tag (image-latest)</system-out>\n"
        "    </testcase>\n"
        '    <testcase classname="kgen" name="kgen.yaml" />\n'
        "  </testsuite>\n"
        "</testsuites>\n"
    )


def test_auto_format_picks_github_under_actions(monkeypatch: pytest.MonkeyPatch):
    from kgen.report.formats import pick_format

    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert pick_format("auto") == "github"
    assert pick_format("sarif") == "sarif"
    monkeypatch.delenv("GITHUB_ACTIONS")
    assert pick_format("auto") == "text"
