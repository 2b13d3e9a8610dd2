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

Validation takes from the same earlier specs: only the fields whose data differs are
validated again (kgen.spec.revalidate). `REUSE = False` runs and validates everything
(the tests compare both).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kgen.rules.reads import READS, SPLIT

if TYPE_CHECKING:
    from kgen.errors import Problem
    from kgen.rules.context import Rule, RuleContext
    from kgen.rules.values import Screen
    from kgen.spec.job import JobSpec

# Whether rules take findings from an earlier merged spec (off: every rule runs).
REUSE = True
# Earlier merged specs of a job kept to compare with (a job has few distinct ones).
MAX_EARLIER = 3
_MISSING: Any = object()


class Ruling:
    """One merged spec's findings, rule by rule, and what they were found in. (A
    plain class: building a dataclass at import costs half a millisecond.)"""

    __slots__ = ("context", "data", "found", "model", "screen", "spec")

    def __init__(
        self, spec: JobSpec, data: Mapping[str, Any], context: RuleContext
    ) -> None:
        self.model, self.spec, self.data, self.context = type(spec), spec, data, context
        self.found: dict[Rule, list[Problem]] = {}
        # What the quick look at the whole spec found (kgen.rules.values.screen).
        self.screen: Screen | None = None

    def changed(self, data: Mapping[str, Any]) -> frozenset[str]:
        """The top-level keys whose data differs between this spec's and `data`."""
        mine = self.data
        return frozenset(
            key
            for key in mine.keys() | data.keys()
            if not same(mine.get(key, _MISSING), data.get(key, _MISSING))
        )


Usable = list[tuple["Ruling", frozenset[str]]]


def alike(
    model: type, data: Any, context: RuleContext, earlier: list[Ruling]
) -> Usable:
    """The earlier merged specs of a job that `data`, to be validated as `model`, may
    take from, each with the keys whose data differs."""
    if not REUSE or not isinstance(data, dict):
        return []
    return [
        (r, r.changed(data))
        for r in earlier
        if r.model is model and r.context is context
    ]


def validated(
    model: type[JobSpec],
    data: Any,
    usable: Usable,
    validate: Callable[[type[JobSpec], Any], tuple[JobSpec | None, list[Problem]]],
) -> tuple[JobSpec | None, list[Problem]]:
    """`validate(model, data)`, or the same spec made from an earlier one with only
    the fields that differ validated (kgen.spec.revalidate)."""
    if usable:
        from kgen.spec.revalidate import revalidated

        spec = revalidated(model, data, [(r.spec, c) for r, c in usable])
        if spec is not None:
            return spec, []
    return validate(model, data)


def ruled(
    spec: JobSpec,
    data: Any,
    context: RuleContext,
    earlier: list[Ruling],
    usable: Usable,
) -> list[Problem]:
    """Every rule's findings on `spec` (validated from `data`), in the order of
    kgen.rules.spec.check_spec; a declared rule's are taken from the first of
    `usable` (the job's earlier merged specs, by alike()) where what it reads is the
    same. The findings are kept in `earlier` for the next merged spec."""
    from kgen.rules import values
    from kgen.rules.spec import spec_rules

    rules = spec_rules(spec)
    if not REUSE or not isinstance(data, dict):
        return [problem for rule in rules for problem in rule(spec, context)]
    kept = (
        _kept(rules, [(r, finer(r.data, data, c)) for r, c in usable]) if usable else {}
    )
    # The rules over every value run on every spec; their quick look at it need only
    # read what changed since a spec where it found nothing.
    clean = next((c for r, c in usable if r.screen == values.CLEAN), None)
    if clean is not None:
        values.screen_fields(spec, clean)
    else:
        values.screen_data(spec, data)
    ruling = Ruling(spec, data, context)
    found = ruling.found
    for rule in rules:
        found[rule] = kept[rule] if rule in kept else list(rule(spec, context))
    ruling.screen = values.known_screen(spec)
    if len(earlier) >= MAX_EARLIER:
        del earlier[0]
    earlier.append(ruling)
    return [problem for rule in rules for problem in found[rule]]


def _kept(
    rules: tuple[Rule, ...], usable: list[tuple[Ruling, frozenset[str]]]
) -> dict[Rule, list[Problem]]:
    """The findings of `rules` an earlier spec has for this one: those of a declared
    rule that reads none of the keys whose data differs, from the first such spec."""
    kept: dict[Rule, list[Problem]] = {}
    for ruling, changed in usable:
        found = ruling.found
        for rule in _untouched(rules, changed):
            if rule not in kept and rule in found:
                kept[rule] = found[rule]
    return kept


# The declared rules of a list that read none of some changed keys, by both: a job's
# environments differ from each other by the same keys as every other job's.
_UNTOUCHED: dict[tuple[tuple[Rule, ...], frozenset[str]], tuple[Rule, ...]] = {}
MAX_UNTOUCHED = 256


def _untouched(rules: tuple[Rule, ...], changed: frozenset[str]) -> tuple[Rule, ...]:
    key = (rules, changed)
    found = _UNTOUCHED.get(key)
    if found is None:
        if len(_UNTOUCHED) >= MAX_UNTOUCHED:
            _UNTOUCHED.clear()
        found = _UNTOUCHED[key] = tuple(
            rule
            for rule in rules
            if (keys := READS.get(rule)) is not None and keys.isdisjoint(changed)
        )
    return found


def finer(
    mine: Mapping[str, Any], data: Mapping[str, Any], changed: frozenset[str]
) -> frozenset[str]:
    """`changed` (the top-level keys whose data differs), with the dotted keys that
    differ under those a rule reads by dotted keys (kgen.rules.reads): `resources.gpu`
    where both are mappings of string keys, else `resources.*`."""
    split = changed & SPLIT
    if not split:
        return changed
    found = set(changed)
    for key in split:
        a, b = mine.get(key, _MISSING), data.get(key, _MISSING)
        if type(a) is not dict or type(b) is not dict:
            found.add(f"{key}.*")
            continue
        for sub in a.keys() | b.keys():
            if type(sub) is not str:
                found.add(f"{key}.*")
            elif not same(a.get(sub, _MISSING), b.get(sub, _MISSING)):
                found.add(f"{key}.{sub}")
    return frozenset(found)


def same(a: Any, b: Any) -> bool:
    """Whether two loaded values are the same to a rule: equal, of the same types
    throughout (`1`, `1.0` and `true` are equal in Python, not in a manifest), and
    mappings in the same order. Equal pickles say so (they give back the same types
    and order); unequal values are told apart first, in C. Data pickle cannot hold, or
    too deep to compare, is never the same."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is str or kind is int:
        return bool(a == b)
    try:
        return bool(a == b) and pickle.dumps(a, 5) == pickle.dumps(b, 5)
    except (pickle.PicklingError, RecursionError, TypeError, ValueError):
        return False
