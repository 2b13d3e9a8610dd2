"""What each rule reads of a job spec, by top-level key (as written: `nodeSelector`).

A job's environments merge its spec with different overlays, and most rules read
only what none of them changes: a rule that declares the keys it reads gives the same
findings for two merged specs of the job whose values under those keys are the same
(kgen.rules.reuse), so it runs once per job, not once per merged spec.

A declaration must name every key whose value can change what the rule finds: its
message, its path, its hint, whether it fires. A rule over every value (control
characters, credentials) reads EVERYTHING; a rule without a declaration is treated
alike, so one added without thought is run every time. The rule's context (the
project's declarations) is the same for every merged spec of a run, and reuse is
also keyed on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

EVERYTHING = "*"

R = TypeVar("R", bound=Callable[..., object])

# The keys each declared rule reads, `framework` included (it picks the kind, whose
# roles `role_items` lists); None for a rule over every value.
READS: dict[object, frozenset[str] | None] = {}


def reads(*keys: str) -> Callable[[R], R]:
    """Declare the top-level keys of the spec that the decorated rule reads."""
    read = None if EVERYTHING in keys else frozenset({*keys, "framework"})

    def declared(rule: R) -> R:
        READS[rule] = read
        return rule

    return declared


def read_keys(rule: object) -> frozenset[str] | None:
    """The keys `rule` reads; None when it may read any (undeclared, or EVERYTHING)."""
    return READS.get(rule)
