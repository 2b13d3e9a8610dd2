"""The API server's own rules (`x-kubernetes-validations`, CEL) of a schema, evaluated
on an object offline, as the API server evaluates them (Kubernetes docs, "Validation
rules"; k8s.io/apiextensions-apiserver pkg/apiserver/schema/cel/validation.go, v1.31):

- each rule with `self` bound to the value at its node, only where the value exists;
  under `items` for each element, under `additionalProperties` for each map value;
- a rule that reads `oldSelf` (a transition rule) only on an update, and only where an
  old value exists at the same place: map values by key, list elements of a
  `x-kubernetes-list-type: map` by their `x-kubernetes-list-map-keys`, never elements of
  other lists (the API server cannot correlate them either);
- a failing rule reports `messageExpression`'s value, else `message`, else
  `failed rule: <rule>`, at the node plus `fieldPath`, with `reason` (default
  FieldValueInvalid) worded as the API server words it.

The schema is walked once into a tree of the nodes that hold rules (RuleTree), so an
object is walked only where a rule can apply.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from kgen.check.cel_lists import duplicate_elements
from kgen.check.cel_runtime import Budget, CelError, compile_rule, evaluate
from kgen.check.cel_secrets import scrubbed
from kgen.errors import DataPath, shortened

_REASONS = {
    "FieldValueForbidden": "Forbidden",
    "FieldValueRequired": "Required value",
    "FieldValueDuplicate": "Duplicate value",
}
MAX_RULES = 1_000


class Rule(NamedTuple):
    rule: str
    message: str | None
    message_expression: str | None
    field_path: str | None
    reason: str | None
    optional_old_self: bool
    where: DataPath  # the rule's place in its schema
    # Why the entry is no rule (not a mapping, no string `rule`): the API server
    # refuses the CRD, so kgen says so rather than skip it in silence.
    malformed: str = ""


class RuleTree(NamedTuple):
    rules: tuple[Rule, ...]
    properties: dict[str, RuleTree]
    items: RuleTree | None
    values: RuleTree | None  # additionalProperties
    declared: frozenset[str]  # every property the schema names
    map_keys: tuple[str, ...]  # x-kubernetes-list-map-keys of a list-type map
    # x-kubernetes-list-type: set. The API server refuses a duplicate element of a
    # set, or of a map by its keys ("Duplicate value"), before any rule runs.
    is_set: bool = False


class Violation(NamedTuple):
    path: DataPath  # in the object
    message: str
    rule: Rule
    transition: bool
    value: Any


def rule_tree(schema: Any, where: DataPath = ()) -> RuleTree | None:
    """The nodes of `schema` that hold rules or lead to some; None without any."""
    if not isinstance(schema, dict):
        return None
    rules = tuple(_rules(schema.get("x-kubernetes-validations"), where))
    properties = {
        key: tree
        for key, sub in _mapping(schema.get("properties")).items()
        if (tree := rule_tree(sub, (*where, "properties", key))) is not None
    }
    items = rule_tree(schema.get("items"), (*where, "items"))
    values = rule_tree(
        schema.get("additionalProperties"), (*where, "additionalProperties")
    )
    keys = schema.get("x-kubernetes-list-map-keys")
    listed = isinstance(keys, list) and schema.get("x-kubernetes-list-type") == "map"
    map_keys = tuple(str(k) for k in keys) if listed and isinstance(keys, list) else ()
    is_set = schema.get("x-kubernetes-list-type") == "set"
    if not (rules or properties or items or values or map_keys or is_set):
        return None
    declared = frozenset(_mapping(schema.get("properties")))
    return RuleTree(rules, properties, items, values, declared, map_keys, is_set)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _rules(raw: Any, where: DataPath) -> Iterator[Rule]:
    here = (*where, "x-kubernetes-validations")
    if raw is not None and not isinstance(raw, list):
        yield Rule("", None, None, None, None, False, here, _SHAPE)
    if not isinstance(raw, list):
        return
    for index, item in enumerate(raw):
        item = _mapping(item)
        rule = item.get("rule")
        if not isinstance(rule, str) or not rule.strip():
            yield Rule("", None, None, None, None, False, (*here, index), _ENTRY)
        else:
            yield Rule(
                rule,
                _text(item.get("message")),
                _text(item.get("messageExpression")),
                _text(item.get("fieldPath")),
                _text(item.get("reason")),
                item.get("optionalOldSelf") is True,
                (*where, "x-kubernetes-validations", index),
            )


_SHAPE = "must be a list of rules (`- rule: ...`)"
_ENTRY = "entry has no rule: each is a mapping with a non-empty string `rule`"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def all_rules(tree: RuleTree | None) -> Iterator[Rule]:
    if tree is None:
        return
    yield from tree.rules
    for sub in (*tree.properties.values(), tree.items, tree.values):
        yield from all_rules(sub)


def compile_problems(tree: RuleTree | None) -> Iterator[tuple[DataPath, str, bool]]:
    """Each rule that cannot run: where it is in the schema, why, and whether that is
    only a warning (kgen skips it; the API server evaluates it)."""
    for count, rule in enumerate(all_rules(tree)):
        if count == MAX_RULES:
            yield rule.where, f"rules: more than {MAX_RULES:,} in one schema", False
            return
        if rule.malformed:
            yield rule.where, rule.malformed, False
            continue
        texts = (("rule", rule.rule), ("messageExpression", rule.message_expression))
        for key, text in texts:
            what = "rule" if key == "rule" else "rule's messageExpression"
            try:
                compiled = compile_rule(text) if text is not None else None
            except CelError as exc:
                yield (*rule.where, key), f"{what} cannot compile: {exc}", False
                continue
            if compiled is not None and compiled.unsupported:
                calls = ", ".join(compiled.unsupported)
                message = (
                    f"{what} calls {calls}, which kgen does not evaluate; it is skipped"
                )
                yield (*rule.where, key), message, True
        if rule.optional_old_self:
            message = (
                "rule sets optionalOldSelf, which kgen does not evaluate; it is skipped"
            )
            yield (*rule.where, "optionalOldSelf"), message, True


_MISSING = object()
_LIST_TYPE = Rule("", None, None, None, None, False, ())  # what a duplicate breaks


def violations(tree: RuleTree, value: Any, old: Any = _MISSING) -> Iterator[Violation]:
    """What fails in `value` (with `old`, its old value, on an update). A rule under
    `items` runs once per element, so the rules on one object share one budget
    (kgen.check.cel_runtime.Budget); past it, one violation says so, at the top."""
    budget = Budget()
    for found in _violations(tree, value, old, (), budget):
        if budget.left >= 0:
            yield found._replace(message=scrubbed(found.message, value))
            continue
        message = (
            "its x-kubernetes-validations rules would cost too much to evaluate on"
            " this object (a rule under a long list runs once per element); kgen"
            " stopped evaluating them"
        )
        yield Violation((), message, found.rule, False, None)
        return


def _violations(
    tree: RuleTree, value: Any, old: Any, path: DataPath, budget: Budget
) -> Iterator[Violation]:
    for rule in tree.rules:
        found = _check(rule, value, old, path, budget)
        if found is not None:
            yield found
        if budget.left < 0:
            return
    if isinstance(value, dict):
        olds = old if isinstance(old, dict) else {}
        for key, item in value.items():
            sub = tree.values if key not in tree.declared else tree.properties.get(key)
            if sub is not None:
                yield from _violations(
                    sub, item, olds.get(key, _MISSING), (*path, key), budget
                )
            if budget.left < 0:
                return
    elif isinstance(value, list) and (tree.map_keys or tree.is_set):
        for at, message in duplicate_elements(value, tree.map_keys, path):
            yield Violation(at, message, _LIST_TYPE, False, value)
    if isinstance(value, list) and tree.items is not None:
        olds = _correlated(tree, old)
        for index, item in enumerate(value):
            previous = (
                olds.get(_key(tree.map_keys, item), _MISSING) if olds else _MISSING
            )
            yield from _violations(tree.items, item, previous, (*path, index), budget)
            if budget.left < 0:
                return


def _key(keys: tuple[str, ...], item: Any) -> Any:
    if not isinstance(item, dict):
        return None
    return tuple(repr(item.get(k)) for k in keys)


def _correlated(tree: RuleTree, old: Any) -> dict[Any, Any]:
    if not tree.map_keys or not isinstance(old, list):
        return {}
    return {_key(tree.map_keys, item): item for item in old}


def _check(
    rule: Rule, value: Any, old: Any, path: DataPath, budget: Budget
) -> Violation | None:
    if rule.malformed:
        return None  # reported where the schema is loaded
    try:
        compiled = compile_rule(rule.rule)
    except CelError:
        return None  # reported where the schema is loaded
    if compiled.unsupported or (compiled.transition and rule.optional_old_self):
        return None  # a warning where the schema is loaded
    if compiled.transition and old is _MISSING:
        return None
    variables = {"self": value, **({"oldSelf": old} if compiled.transition else {})}
    if "__" in rule.rule:  # a property name escaped (`x__dash__y`, `__namespace__`)
        from kgen.check.cel_values import with_escaped_names

        variables = {k: with_escaped_names(v) for k, v in variables.items()}
    at = (*path, *field_path(rule.field_path))
    try:
        result = evaluate(rule.rule, variables, budget)
    except CelError as exc:
        message = f"rule `{shortened(rule.rule, 120)}` cannot be evaluated: {exc}"
        return Violation(at, message, rule, compiled.transition, value)
    if result is True:
        return None
    if result is not False:
        message = f"rule `{shortened(rule.rule, 120)}` returned {type(result).__name__}, not a bool"
        return Violation(at, message, rule, compiled.transition, value)
    said = _message(rule, variables, budget)
    reason = _REASONS.get(rule.reason or "", "Invalid value")
    return Violation(at, f"{reason}: {said}", rule, compiled.transition, value)


def _message(rule: Rule, variables: dict[str, Any], budget: Budget) -> str:
    if rule.message_expression:
        try:
            said = evaluate(rule.message_expression, variables, budget)
        except CelError:
            said = None
        if isinstance(said, str) and said.strip():
            return shortened(said, 300)
    if rule.message:
        return shortened(rule.message, 300)
    return f"failed rule: {shortened(rule.rule, 200)}"


_STEP = re.compile(r"\.([A-Za-z_$][A-Za-z0-9_$-]*)|\['((?:[^'\\]|\\.)*)'\]")


def field_path(text: str | None) -> DataPath:
    """`.spec.replicas` or `.labels['app.kubernetes.io/name']` as a data path; what
    does not parse (the API server refuses such a CRD) points at the node itself."""
    if not text:
        return ()
    steps: list[str | int] = []
    position = 0
    while position < len(text):
        found = _STEP.match(text, position)
        if found is None:
            return ()
        steps.append(found.group(1) or found.group(2))
        position = found.end()
    return tuple(steps)
