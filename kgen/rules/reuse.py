"""A job's rules run once, with only what its overlays change run again.

The environments of a job merge its spec with their overlays: a CPU overlay drops the
GPUs, a GPU overlay adds a node selector and tolerations, and each merged spec was
checked by every rule although most rules read nothing an overlay touched. Here a
rule that declares the keys it reads (kgen.rules.reads) takes its findings from an
earlier merged spec of the same job, model and rule context whose data under those
keys is the same (same types, same values, same order); the others run.

The findings are the rule's, before they are located: every merged spec locates its
own problems at the lines of its own overlays (kgen.pipeline.stage), and `lint.ignore`
and severities apply to the whole list afterwards, so what a user sees is the same to
the byte as with every rule run (tests/test_rule_reuse.py).

Validation is not shared this way: a spec is validated whole (kgen.spec.validate).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgen.rules.reads import read_keys

if TYPE_CHECKING:
    from kgen.errors import Problem
    from kgen.rules.context import Rule, RuleContext
    from kgen.spec.job import JobSpec

# Whether rules take findings from an earlier merged spec (off: every rule runs).
REUSE = True
# Earlier merged specs of a job kept to compare with (a job has few distinct ones).
MAX_EARLIER = 4
_MISSING: Any = object()


@dataclass
class Ruling:
    """One merged spec's findings, rule by rule, and what they were found in."""

    model: type
    data: Mapping[str, Any]
    context: RuleContext
    found: dict[Rule, list[Problem]] = field(default_factory=dict)

    def changed(self, data: Mapping[str, Any]) -> frozenset[str]:
        """The top-level keys whose data differs between this spec's and `data`."""
        mine = self.data
        return frozenset(
            key
            for key in (*mine, *(k for k in data if k not in mine))
            if not same(mine.get(key, _MISSING), data.get(key, _MISSING))
        )


def ruled(
    spec: JobSpec, data: Any, context: RuleContext, earlier: list[Ruling]
) -> list[Problem]:
    """Every rule's findings on `spec` (validated from `data`), in the order of
    kgen.rules.spec.check_spec; a declared rule's are taken from the first of
    `earlier` (the job's other merged specs) where what it reads is the same. The
    findings are kept in `earlier` for the next merged spec."""
    from kgen.rules.spec import spec_rules

    rules = spec_rules(spec)
    if not REUSE or not isinstance(data, dict):
        return [problem for rule in rules for problem in rule(spec, context)]
    ruling = Ruling(type(spec), data, context)
    usable = [
        (r, r.changed(data))
        for r in earlier
        if r.model is type(spec) and r.context is context
    ]
    problems: list[Problem] = []
    for rule in rules:
        found = _reused(rule, usable)
        if found is None:
            found = list(rule(spec, context))
        ruling.found[rule] = found
        problems += found
    if len(earlier) >= MAX_EARLIER:
        del earlier[0]
    earlier.append(ruling)
    return problems


def _reused(
    rule: Rule, usable: list[tuple[Ruling, frozenset[str]]]
) -> list[Problem] | None:
    keys = read_keys(rule)
    if keys is None:
        return None
    for ruling, changed in usable:
        found = ruling.found.get(rule)
        if found is not None and keys.isdisjoint(changed):
            return found
    return None


def same(a: Any, b: Any) -> bool:
    """Whether two loaded values are the same to a rule: equal, of the same types
    throughout (`1`, `1.0` and `true` are equal in Python, not in a manifest), and
    mappings in the same order. A type other than the loader's is never the same."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is y:
            continue
        kind = type(x)
        if kind is not type(y):
            return False
        if kind is dict:
            if len(x) != len(y):
                return False
            for (kx, vx), (ky, vy) in zip(x.items(), y.items(), strict=True):
                stack += [(kx, ky), (vx, vy)]
        elif kind is list:
            if len(x) != len(y):
                return False
            stack += zip(x, y, strict=True)
        elif kind is float:
            # 0.0 and -0.0 are equal and print differently; NaN equals nothing.
            if x != y or repr(x) != repr(y):
                return False
        elif kind not in (str, int, bool) or x != y:
            return False
    return True
