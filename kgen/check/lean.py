"""A schema as kgen checks objects against it: without its descriptions.

The core definitions describe every field in prose, which is three quarters of a job's
output schema (210 KB of a PyTorchJob's on one target, 60 KB without). A check never
reads them: neither jsonschema-rs nor jsonschema's error messages quote a description,
and kgen's own wording reads `properties`, `minimum`, `maximum` and `format` alone
(kgen.check.output, kgen.check.core). Parsing the stored schema and compiling it over
the prose cost a one-spec `validate` about 4 ms. The published schemas (`kgen schema`,
kgen.reference.schemas) keep every description; this is only what the checks compile.
"""

from __future__ import annotations

from typing import Any

# Keywords whose value is a map of names to schemas, a list of schemas, or one schema
# (JSON Schema 2020-12 and draft 7, which kgen's schemas use). Any other keyword's value
# is data (`enum`, `const`, `default`, `required`): kept as it is, never walked.
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_ONE = frozenset(
    {
        *("items", "additionalItems", "additionalProperties", "propertyNames"),
        *("not", "if", "then", "else", "contains"),
        *("unevaluatedItems", "unevaluatedProperties"),
    }
)
_LISTED = _SCHEMA_LISTS | _SCHEMA_ONE
# Prose for readers: what a check never reads.
_ANNOTATIONS = frozenset({"description"})


def without_descriptions(schema: Any) -> Any:
    """A copy of `schema` without the prose of any of its (sub)schemas."""
    if not isinstance(schema, dict):
        return schema  # `true`, `false`: a schema too
    lean: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ANNOTATIONS and isinstance(value, str):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            lean[key] = {name: without_descriptions(s) for name, s in value.items()}
        elif key in _LISTED and isinstance(value, list):
            # A list of schemas; under `items`, draft 7's tuple form.
            lean[key] = [without_descriptions(s) for s in value]
        elif key in _SCHEMA_ONE:
            lean[key] = without_descriptions(value)
        else:
            lean[key] = value
    return lean
