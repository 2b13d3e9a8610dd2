"""Rules of a PaddleJob spec: workers must exist (the master is optional: without it
the job runs in collective mode)."""

from __future__ import annotations

from collections.abc import Iterator

from kgen.errors import Problem
from kgen.kinds.paddle.spec import own
from kgen.rules.context import Rule, RuleContext
from kgen.rules.reads import reads
from kgen.spec.job import JobSpec


@reads("roles")
def _worker(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    if own(spec).roles.worker is None:
        yield Problem(
            "a PaddleJob needs a worker role to do the training",
            "paddle-no-worker",
            path=("roles",),
            at_key=True,
            hint="add roles.worker; a master is only for parameter-server mode",
        )


RULES: tuple[Rule, ...] = (_worker,)
