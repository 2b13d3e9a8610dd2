"""The CEL rules of a project's CRDs (kgen.check.crds): what cannot run, located in
the CRD file when it loads, and what an object breaks, as schema errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kgen.check.cel_rules import RuleTree, compile_problems, violations
from kgen.errors import DataPath, Problem
from kgen.load.document import Document

_HINT = "fix the rule; the API server would refuse this CRD"
_SKIPPED_HINT = "kgen skips it and checks the rest; the API server evaluates it"


def rule_problems(doc: Document, tree: RuleTree | None) -> list[Problem]:
    """A rule that does not compile is an error at its line; one kgen cannot evaluate
    is a warning there."""
    problems = []
    for path, message, skipped in compile_problems(tree):
        problems.append(
            doc.problem_at(
                path,
                f"this CRD's x-kubernetes-validations {message}",
                "cel-rule-skipped" if skipped else "invalid-value",
                hint=_SKIPPED_HINT if skipped else _HINT,
                severity="warning" if skipped else "error",
            )
        )
    return problems


def rule_errors(
    tree: RuleTree | None, instance: Any
) -> Iterator[tuple[DataPath, str, Any]]:
    """(path, message, value) of each rule `instance` breaks, transition rules aside."""
    if tree is None:
        return
    for found in violations(tree, instance):
        yield found.path, found.message, found.value
