"""The TFJob problem codes, with the paragraph docs/rules.md and SARIF show."""

from __future__ import annotations

from kgen.rules.info import RuleInfo, rule

CATALOG: tuple[RuleInfo, ...] = (
    rule(
        "tf-chief-replicas",
        "error",
        False,
        "A TFJob chief with other than 1 replica",
        "The webhook counts chief roles, not replicas; the old CRDs required exactly 1. kgen checks the count.",
    ),
    rule(
        "tf-no-trainer",
        "error",
        False,
        "A TFJob without chief or workers",
        "Parameter servers and evaluators alone train nothing.",
    ),
    rule(
        "ps-clean-pod-policy",
        "warning",
        True,
        "cleanPodPolicy None on a TFJob with parameter servers",
        "Parameter servers never exit, so with None they keep running (and holding their resources) after the job succeeds.",
    ),
)
