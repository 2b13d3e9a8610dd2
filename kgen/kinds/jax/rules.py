"""Rules of a JAXJob spec: someone must run."""

from __future__ import annotations

from collections.abc import Iterator

from kgen.errors import Problem
from kgen.kinds.jax.spec import own
from kgen.rules.context import Rule, RuleContext
from kgen.rules.reads import reads
from kgen.spec.job import JobSpec


@reads("roles")
def _worker(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    if own(spec).roles.worker is None:
        yield Problem(
            "a JAXJob needs a worker role",
            "jax-no-worker",
            path=("roles",),
            at_key=True,
            hint="add roles.worker with the number of JAX processes",
        )


RULES: tuple[Rule, ...] = (_worker,)
