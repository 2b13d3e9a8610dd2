"""The CEL rules of kgen's own envelopes (kgen.check.envelope): a kind's envelope may
carry the rules its CRD has (`x-kubernetes-validations`, written from the operator's
API types), which kgen.check.output evaluates on each rendered job, and
kgen.check.cel_transition on a job changed in place (envelope_rules). Rules sit inline in the envelope;
the core definitions behind a `$ref` have none."""

from __future__ import annotations

import functools
from collections.abc import Iterator

from kgen.check.cel_rules import RuleTree, rule_tree, violations
from kgen.check.envelope import envelope
from kgen.check.schema_error import SchemaError
from kgen.kinds import kind_named
from kgen.kinds.targets import TARGETS
from kgen.render.base import Manifest


@functools.cache
def envelope_rules(kind: str, target: str) -> RuleTree | None:
    registered = kind_named(kind)
    if registered is None:
        return None
    return rule_tree(envelope(registered, TARGETS[target]))


def envelope_errors(manifest: Manifest, *, target: str) -> Iterator[SchemaError]:
    """Each rule the job breaks, transition rules aside, as a schema error."""
    tree = envelope_rules(manifest.kind, target)
    if tree is None:
        return
    for found in violations(tree, manifest.body):
        yield SchemaError(
            found.path, "x-kubernetes-validations", found.value, {}, found.message
        )
