"""One entry of the rule catalogue (kgen.rules.catalog)."""

from __future__ import annotations

from dataclasses import dataclass

from kgen.errors import Severity


@dataclass(frozen=True)
class RuleInfo:
    id: str
    severity: Severity
    silenceable: bool
    summary: str
    explanation: str


def rule(
    id: str, severity: Severity, silenceable: bool, summary: str, explanation: str
) -> RuleInfo:
    return RuleInfo(id, severity, silenceable, summary, " ".join(explanation.split()))
