"""The table of every problem code (docs/rules.md), generated from the catalogue
(`make docs`)."""

from __future__ import annotations

from kgen.rules.catalog import RULES

RULES_BEGIN = "<!-- BEGIN RULES: generated from the rule catalogue by `make docs` -->"
RULES_END = "<!-- END RULES -->"


def render_rules() -> str:
    """Every code kgen reports: policy rules first, then input errors."""
    lines = [
        RULES_BEGIN,
        "",
        "| id | severity | silenceable | what it means |",
        "|---|---|---|---|",
    ]
    ordered = sorted(
        RULES.values(), key=lambda r: (not r.silenceable, r.severity, r.id)
    )
    for rule in ordered:
        silence = "yes" if rule.silenceable else "no"
        lines.append(
            f"| `{rule.id}` | {rule.severity} | {silence} | **{rule.summary}.** {rule.explanation} |"
        )
    return "\n".join([*lines, "", RULES_END])
