"""Quantities a patch writes, held to the API server's grammar: the core definitions
take a Quantity as any string or number, and the API server parses the string
(resource.ParseQuantity, after trimming spaces) and refuses the object when it is
none, as `memory: 4GB`. The spec's own quantities are checked as they are read
(kgen.spec.quantity); a CRD's schema says its own pattern."""

from __future__ import annotations

from kgen.check.schema_places import patched_strings, quantity_at
from kgen.check.trace import patch_at
from kgen.errors import DataPath, Problem, format_path, shortened, unquoted
from kgen.render.base import Manifest
from kgen.spec.hidden import secret
from kgen.spec.quantity import parse_quantity
from kgen.spec.validate import MAX_QUOTED


def patched_quantities(
    objects: list[Manifest], *, target: str, version: str
) -> list[Problem]:
    return [
        patch_at(manifest, path, _problem(manifest, path, value))
        for manifest, path, value, schemas in patched_strings(
            objects,
            target=target,
            version=version,
            wanted=lambda value: parse_quantity(value.strip()) is None,
        )
        if any(quantity_at(schema, path) for schema in schemas)
    ]


def _problem(manifest: Manifest, path: DataPath, value: str) -> Problem:
    message = f"'{shortened(value, MAX_QUOTED)}' is not a Kubernetes quantity"
    if secret(manifest.body, path):
        message = unquoted(message, value)
    return Problem(
        f"the rendered {manifest.kind} '{manifest.name}' is invalid at"
        f" {format_path(path)}: {message}",
        "output-schema",
        path=path,
    )
