"""The PaddleJob problem codes, with the paragraph docs/rules.md and SARIF show."""

from __future__ import annotations

from kgen.rules.info import RuleInfo, rule

CATALOG: tuple[RuleInfo, ...] = (
    rule(
        "paddle-no-worker",
        "error",
        False,
        "A PaddleJob without workers",
        "Workers are Paddle's trainers; a master (parameter servers) alone trains nothing.",
    ),
)
