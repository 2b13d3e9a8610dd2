"""The formats CI tools read: `github` annotations, `json`, `sarif` for code scanning
and `junit`; each to stdout, so it can be redirected into a file."""

from __future__ import annotations

import json
from collections.abc import Sequence

from kgen import __version__
from kgen.errors import Problem, shown_path
from kgen.report.base import StreamReporter, summary

# GitHub shows 10 annotations of each kind per step and drops the rest silently.
GITHUB_SHOWN = 10


class JsonReporter(StreamReporter):
    """Every problem with all its fields, and counts."""

    def report(
        self, problems: Sequence[Problem], *, checked: Sequence[str] = ()
    ) -> None:
        errors = sum(p.severity == "error" for p in problems)
        document = {
            "tool": "kgen",
            "version": __version__,
            "errors": errors,
            "warnings": len(problems) - errors,
            "checked": list(checked),
            "problems": [_as_dict(p) for p in problems],
        }
        self.stream.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def _as_dict(problem: Problem) -> dict[str, object]:
    return {
        "file": problem.file,
        "line": problem.line,
        "column": problem.column,
        "severity": problem.severity,
        "code": problem.code,
        "message": problem.message,
        "hint": problem.hint,
        "context": problem.context,
        "field": shown_path(problem.path) or None,
    }


class GithubReporter(StreamReporter):
    """GitHub Actions workflow commands: errors first, since only 10 of each kind show."""

    def report(
        self, problems: Sequence[Problem], *, checked: Sequence[str] = ()
    ) -> None:
        ordered = sorted(problems, key=lambda p: (p.severity != "error", p.sort_key))
        for p in ordered:
            props = [f"file={_escape_property(p.file or '')}"]
            props += [f"line={p.line}"] if p.line else []
            props += [f"col={p.column}"] if p.column else []
            props.append(f"title={_escape_property(f'kgen ({p.code})')}")
            text = (
                p.message
                + (f"\n{p.hint}" if p.hint else "")
                + (f"\n(in {p.context})" if p.context else "")
            )
            self.stream.write(
                f"::{p.severity} {','.join(props)}::{_escape_data(text)}\n"
            )
        if not problems:
            return
        self.stream.write(summary(problems) + "\n")
        errors = sum(p.severity == "error" for p in problems)
        if max(errors, len(problems) - errors) > GITHUB_SHOWN:
            self.stream.write(
                f"kgen: GitHub shows {GITHUB_SHOWN} annotations of each kind; all are listed in this log\n"
            )


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


class SarifReporter(StreamReporter):
    """SARIF 2.1.0 for code scanning: every catalogued rule, and fingerprints that do not
    depend on line numbers, so a result keeps its identity when lines move."""

    def report(
        self, problems: Sequence[Problem], *, checked: Sequence[str] = ()
    ) -> None:
        # Imported here: the catalogue (every kind's codes) is needed by SARIF alone,
        # and `kgen --help` imports this module for the format names.
        from kgen.rules.catalog import RULES

        ids = sorted(RULES)
        rules = [_sarif_rule(rule_id) for rule_id in ids]
        results = [_sarif_result(p, ids) for p in problems]
        log = {
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {
                        "driver": {
                            "name": "kgen",
                            "version": __version__,
                            "rules": rules,
                        }
                    },
                    "results": results,
                }
            ],
        }
        self.stream.write(json.dumps(log, indent=2, ensure_ascii=False) + "\n")


def _sarif_rule(rule_id: str) -> dict[str, object]:
    from kgen.rules.catalog import RULES

    rule = RULES[rule_id]
    return {
        "id": rule.id,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.explanation},
        "defaultConfiguration": {"level": rule.severity},
        "help": {"text": rule.explanation},
    }


def _sarif_result(problem: Problem, ids: list[str]) -> dict[str, object]:
    import hashlib

    region = {"startLine": problem.line or 1, "startColumn": problem.column or 1}
    identity = "\0".join(
        [problem.code, problem.file or "", problem.message, problem.context or ""]
    )
    result: dict[str, object] = {
        "ruleId": problem.code,
        "level": problem.severity,
        "message": {
            "text": problem.message + (f" Hint: {problem.hint}" if problem.hint else "")
        },
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {
                        "uri": problem.file or "kgen.yaml",
                        "uriBaseId": "%SRCROOT%",
                    },
                    "region": region,
                }
            }
        ],
        "partialFingerprints": {
            "kgenProblem/v1": hashlib.sha256(identity.encode()).hexdigest()[:32]
        },
    }
    if problem.code in ids:
        result["ruleIndex"] = ids.index(problem.code)
    return result


class JunitReporter(StreamReporter):
    """JUnit XML: one test case per input file; errors fail it, warnings go to its output."""

    def report(
        self, problems: Sequence[Problem], *, checked: Sequence[str] = ()
    ) -> None:
        from xml.etree import ElementTree  # only this format needs it (start-up)

        files = sorted({*checked, *(p.file or "kgen.yaml" for p in problems)})
        failing = {p.file for p in problems if p.severity == "error"}
        suite = ElementTree.Element(
            "testsuite",
            {
                "name": "kgen",
                "tests": str(len(files)),
                "failures": str(len(failing)),
                "errors": "0",
                "skipped": "0",
            },
        )
        for file in files:
            case = ElementTree.SubElement(
                suite, "testcase", {"classname": "kgen", "name": file}
            )
            mine = [p for p in problems if (p.file or "kgen.yaml") == file]
            for p in (p for p in mine if p.severity == "error"):
                failure = ElementTree.SubElement(
                    case, "failure", {"type": p.code, "message": p.message}
                )
                failure.text = _junit_text(p)
            warnings = [_junit_text(p) for p in mine if p.severity == "warning"]
            if warnings:
                ElementTree.SubElement(case, "system-out").text = "\n".join(warnings)
        root = ElementTree.Element("testsuites", {"name": "kgen"})
        root.append(suite)
        ElementTree.indent(root)
        self.stream.write(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            + ElementTree.tostring(root, encoding="unicode")
            + "\n"
        )


def _junit_text(problem: Problem) -> str:
    text = (
        f"{problem.location}: [{problem.severity}] {problem.message} ({problem.code})"
    )
    return text + (f"\nhint: {problem.hint}" if problem.hint else "")
