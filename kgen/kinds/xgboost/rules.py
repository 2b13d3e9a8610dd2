"""Rules of an XGBoostJob spec: the webhook requires a master. (Exactly one master is
RoleDef data, checked with every kind's roles in kgen.rules.spec.)"""

from __future__ import annotations

from collections.abc import Iterator

from kgen.errors import Problem
from kgen.kinds.xgboost.spec import own
from kgen.rules.context import Rule, RuleContext
from kgen.rules.reads import reads
from kgen.spec.job import JobSpec


@reads("roles")
def _master(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    # kubeflow/trainer@v1.9.4:pkg/webhooks/xgboost/xgboostjob_webhook.go
    # validateXGBReplicaSpecs: "must be present".
    if own(spec).roles.master is None:
        yield Problem(
            "an XGBoostJob needs a master role (rank 0)",
            "xgboost-no-master",
            path=("roles",),
            at_key=True,
            hint="add roles.master with replicas: 1",
        )


RULES: tuple[Rule, ...] = (_master,)
