"""The JAXJob problem codes, with the paragraph docs/rules.md and SARIF show."""

from __future__ import annotations

from kgen.rules.info import RuleInfo, rule

CATALOG: tuple[RuleInfo, ...] = (
    rule(
        "jax-no-worker",
        "error",
        False,
        "A JAXJob without workers",
        "A JAXJob has one replica type, Worker; worker 0 is the coordinator every process connects to.",
    ),
)
