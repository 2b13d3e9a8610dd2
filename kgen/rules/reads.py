"""What each rule reads of a job spec, by top-level key (as written: `nodeSelector`).

A job's environments merge its spec with different overlays, and most rules read
only what none of them changes: a rule that declares the keys it reads gives the same
findings for two merged specs of the job whose values under those keys are the same
(kgen.rules.reuse), so it runs once per job, not once per merged spec.

A declaration must name every key whose value can change what the rule finds: its
message, its path, its hint, whether it fires. A dotted key (`resources.requests`)
names one key of a top-level mapping that validates as a model of fixed fields (no
extra keys, so the order of its keys changes nothing): the rule is then not run again
where only another of its keys differs (`resources.gpu`, which a CPU overlay deletes).
A rule over every value (control characters, credentials) reads EVERYTHING; a rule
without a declaration is treated alike, so one added without thought is run every
time. The rule's context (the project's declarations) is the same for every merged
spec of a run, and reuse is also keyed on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

EVERYTHING = "*"

R = TypeVar("R", bound=Callable[..., object])

# The keys each declared rule reads, `framework` included (it picks the kind, whose
# roles `role_items` lists); None for a rule over every value.
READS: dict[object, frozenset[str] | None] = {}
# The top-level keys some rule reads only some keys of, by a dotted key.
SPLIT: set[str] = set()


def reads(*keys: str) -> Callable[[R], R]:
    """Declare the keys of the spec that the decorated rule reads: top-level keys, or
    dotted (`resources.requests`). A dotted key's rule also reads `<key>.*`: the whole
    mapping, where it is no mapping in one of the specs compared (kgen.rules.reuse)."""
    parents = {key.partition(".")[0] for key in keys if "." in key}
    SPLIT.update(parents)
    whole = {f"{parent}.*" for parent in parents}
    read = None if EVERYTHING in keys else frozenset({*keys, *whole, "framework"})

    def declared(rule: R) -> R:
        READS[rule] = read
        return rule

    return declared


def read_keys(rule: object) -> frozenset[str] | None:
    """The keys `rule` reads; None when it may read any (undeclared, or EVERYTHING)."""
    return READS.get(rule)
