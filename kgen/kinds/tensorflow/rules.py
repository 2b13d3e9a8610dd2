"""Rules of a TFJob spec: someone must train, and parameter servers must not outlive
the job. (One chief at most is RoleDef data, checked with every kind's roles in
kgen.rules.spec.)"""

from __future__ import annotations

from collections.abc import Iterator

from kgen.errors import Problem
from kgen.kinds.tensorflow.spec import own
from kgen.rules.context import Rule, RuleContext
from kgen.rules.reads import reads
from kgen.spec.job import JobSpec


@reads("roles")
def _trainer(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    roles = own(spec).roles
    if roles.chief is None and roles.worker is None:
        yield Problem(
            "a TFJob needs a chief or worker role to do the training",
            "tf-no-trainer",
            path=("roles",),
            at_key=True,
        )


@reads("roles", "runPolicy")
def _ps_cleanup(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    """A policy rule (silenceable): cleanPodPolicy None leaves PS pods running."""
    job = own(spec)
    if job.roles.ps is not None and job.run_policy.clean_pod_policy == "None":
        yield Problem(
            "with cleanPodPolicy None the parameter servers keep running after the job ends",
            "ps-clean-pod-policy",
            path=("runPolicy", "cleanPodPolicy"),
            hint="use Running (kgen's default for jobs with PS) or All",
        )


RULES: tuple[Rule, ...] = (_trainer, _ps_cleanup)
