"""One entry of the rule catalogue (kgen.rules.catalog)."""

from __future__ import annotations

from typing import NamedTuple

from kgen.errors import Severity


class RuleInfo(NamedTuple):
    """A NamedTuple: a frozen dataclass's methods were compiled from source at import."""

    id: str
    severity: Severity
    silenceable: bool
    summary: str
    explanation: str


def rule(
    id: str, severity: Severity, silenceable: bool, summary: str, explanation: str
) -> RuleInfo:
    return RuleInfo(id, severity, silenceable, summary, " ".join(explanation.split()))
