"""The XGBoostJob problem codes, with the paragraph docs/rules.md and SARIF show."""

from __future__ import annotations

from kgen.rules.info import RuleInfo, rule

CATALOG: tuple[RuleInfo, ...] = (
    rule(
        "xgboost-master-replicas",
        "error",
        False,
        "An XGBoostJob master with other than 1 replica",
        "The webhook requires Master replicas to be exactly 1 (kubeflow/trainer@v1.9.4 pkg/webhooks/xgboost).",
    ),
    rule(
        "xgboost-no-master",
        "error",
        False,
        "An XGBoostJob without a master",
        "The webhook rejects an XGBoostJob without a Master: it is rank 0 and every worker's MASTER_ADDR.",
    ),
)
