"""Whether a key of an object is a field its schema declares (`topologyKey`,
`imagePullSecrets`, `automountServiceAccountToken`) or one its author chose (a label, an
annotation, a ConfigMap key, a field of a free-form object).

The secret rules judge a chosen key by its name (`data: {password: …}`); a declared
field's name says nothing of its value (kgen.rules.secret_names.secret_place's
`chosen`). A place the schema does not describe counts as chosen: the rules then look
rather than miss one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kgen.errors import DataPath

_DEFS = "#/$defs/"
# $refs followed, at most, per step (a definition that refers to itself).
_MAX_REFS = 32


def declared_keys(
    schema: Any, definitions: Mapping[str, Any] | None = None
) -> Callable[[DataPath], bool]:
    """`chosen(path)` for an object of `schema`: True unless the key ending `path` is a
    property the schema declares there. `definitions` resolves `$ref: #/$defs/<name>`
    (else the schema's own `$defs`)."""
    defs = definitions if definitions is not None else _own_defs(schema)
    return lambda path: not _declared(schema, defs, path)


def _own_defs(schema: Any) -> Mapping[str, Any]:
    found = schema.get("$defs") if isinstance(schema, dict) else None
    return found if isinstance(found, dict) else {}


def _declared(schema: Any, defs: Mapping[str, Any], path: DataPath) -> bool:
    node = schema
    for index, part in enumerate(path):
        node = _resolved(node, defs)
        if node is None:
            return False
        if isinstance(part, int):
            node = node.get("items")
            continue
        properties = node.get("properties")
        field = properties.get(part) if isinstance(properties, dict) else None
        if index == len(path) - 1:
            return field is not None
        if field is None:
            extra = node.get("additionalProperties")
            field = extra if isinstance(extra, dict) else None
        node = field
    return False


def _resolved(node: Any, defs: Mapping[str, Any]) -> dict[str, Any] | None:
    """`node` with its `$ref`s followed, and its one `allOf` branch if it is only that
    (jsonschema's way of giving a `$ref` a sibling)."""
    for _ in range(_MAX_REFS):
        if not isinstance(node, dict):
            return None
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_DEFS):
            node = defs.get(ref[len(_DEFS) :])
            continue
        branches = node.get("allOf")
        if "properties" not in node and isinstance(branches, list) and branches:
            node = branches[0]
            continue
        return node
    return None
