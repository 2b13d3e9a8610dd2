"""Check free-form Kubernetes objects in a spec against the core API definitions.

kubernetes-validate ships the OpenAPI definitions of each Kubernetes release as JSON
Schema (kgen.check.core_definitions). kgen compiles one validator per definition, over
the definitions it references (kgen.check.core_schemas), because the library's own
`validate()` re-reads the 1.4 MB file on every call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

# The definitions, the schemas built over them and their integers' ranges live in
# modules of their own; callers import them from here too.
from kgen.check.core_definitions import check_version as check_version
from kgen.check.core_definitions import definitions as definitions
from kgen.check.core_definitions import supported_versions as supported_versions
from kgen.check.core_schemas import DEFS
from kgen.check.core_schemas import lean_with_definitions as lean_with_definitions
from kgen.check.core_schemas import with_definitions as with_definitions
from kgen.check.integer_ranges import INTEGER_RANGES as INTEGER_RANGES
from kgen.check.integer_ranges import bounded_integers as bounded_integers
from kgen.check.integer_ranges import range_message as range_message
from kgen.check.schema_words import python_worded
from kgen.check.stored import stored_schema, stored_text
from kgen.errors import DataPath, Problem, unquoted
from kgen.spec.hidden import secret
from kgen.spec.keys import suggest

if TYPE_CHECKING:  # loaded on first use: a spec without core objects never needs it
    from jsonschema import Draft202012Validator

DEFAULT_KUBERNETES_VERSION = "1.35"

# Spec fields that hold a core object, and the definition each must satisfy.
AFFINITY = "io.k8s.api.core.v1.Affinity"
SECURITY_CONTEXT = "io.k8s.api.core.v1.SecurityContext"
POD_SECURITY_CONTEXT = "io.k8s.api.core.v1.PodSecurityContext"
METRIC_SPEC = "io.k8s.api.autoscaling.v2.MetricSpec"


def definition_schema(definition: str, version: str) -> dict[str, Any]:
    """A schema for one core definition, with what it references, to check with."""
    return stored_schema(
        definition_key(definition, version),
        lambda: lean_with_definitions({"$ref": DEFS + definition}, version),
    )


def definition_key(definition: str, version: str) -> tuple[str, ...]:
    """What definition_schema is stored under (kgen.check.stored)."""
    return ("core", definition, version)


def compiled(key: tuple[str, ...], schema: Callable[[], dict[str, Any]]) -> Any:
    """jsonschema-rs's validator of the schema stored under `key`, compiled from its
    text (no copy of it made in Python), else of `schema()`: what stored_schema gives,
    which builds it again where the text is not JSON or no schema."""
    import jsonschema_rs

    text = stored_text(key)
    if text is not None:
        try:
            return jsonschema_rs.validator_for(text)
        except ValueError:  # jsonschema_rs.ValidationError too
            pass
    return jsonschema_rs.validator_for(schema())


@functools.cache
def validator_for(
    definition: str, version: str = DEFAULT_KUBERNETES_VERSION
) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(definition_schema(definition, version))


@functools.cache
def fast_validator(definition: str, version: str = DEFAULT_KUBERNETES_VERSION) -> Any:
    """The compiled check of the common case, a valid object; jsonschema words errors."""
    return compiled(
        definition_key(definition, version),
        lambda: definition_schema(definition, version),
    )


def check_object(
    value: Any,
    definition: str,
    *,
    path: DataPath,
    version: str = DEFAULT_KUBERNETES_VERSION,
) -> list[Problem]:
    """Problems in `value` as a `definition`, located at `path` plus the error's own
    path (kgen.check.core_objects adds what the definition only names)."""
    if fast_validator(definition, version).is_valid(value):
        return []
    kind = definition.rsplit(".", 1)[-1]
    problems = []
    for error in validator_for(definition, version).iter_errors(value):
        where = (*path, *error.absolute_path)
        if error.validator == "additionalProperties":
            allowed = sorted(error.schema.get("properties", {}))
            for key in sorted(set(error.instance) - set(allowed)):
                message = f"unknown key '{key}' in {kind}"
                hint = suggest(key, allowed)
                problems.append(
                    Problem(
                        message,
                        "unknown-key",
                        path=(*where, key),
                        at_key=True,
                        hint=hint,
                    )
                )
            continue
        message = range_message(error) or error.message
        if secret(value, tuple(error.absolute_path)):
            # A value under a secret's name is never quoted, whatever is wrong with it.
            message = unquoted(message, error.instance)
        message = python_worded(message, error)
        problems.append(
            Problem(f"invalid {kind}: {message}", "invalid-value", path=where)
        )
    return problems
