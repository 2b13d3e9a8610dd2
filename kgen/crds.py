"""CRDs a project adds (kgen.yaml `crds:` or `--crd`) for its cluster's exact operator
version: their schemas check the rendered objects too, unknown fields as errors (the API
server prunes them from a structural CRD without a word)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgen.errors import Problem
from kgen.loader import load_file

if TYPE_CHECKING:
    from jsonschema import Draft7Validator


def load_crd_schemas(
    root: Path, paths: list[str]
) -> tuple[dict[tuple[str, str], Draft7Validator], list[Problem]]:
    validators: dict[tuple[str, str], Draft7Validator] = {}
    problems: list[Problem] = []
    if not paths:
        return validators, problems
    from jsonschema import Draft7Validator

    for name in paths:
        doc, errors = load_file(root / name, name)
        problems += errors
        if doc is None:
            continue
        schemas = _schemas(doc.data)
        if not schemas:
            problems.append(
                Problem(
                    "not a CustomResourceDefinition with a schema",
                    "invalid-value",
                    file=name,
                    line=1,
                    column=1,
                )
            )
        validators |= {
            key: Draft7Validator(_strict(schema)) for key, schema in schemas.items()
        }
    return validators, problems


def _schemas(crd: Any) -> dict[tuple[str, str], Any]:
    if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
        return {}
    spec = crd.get("spec") or {}
    group, kind = spec.get("group"), (spec.get("names") or {}).get("kind")
    shared = (spec.get("validation") or {}).get(
        "openAPIV3Schema"
    )  # apiextensions v1beta1
    versions = spec.get("versions") or (
        [{"name": spec["version"]}] if spec.get("version") else []
    )
    out = {}
    for version in versions:
        schema = (version.get("schema") or {}).get("openAPIV3Schema") or shared
        if schema and group and kind:
            out[(f"{group}/{version['name']}", kind)] = schema
    return out


def _strict(schema: Any) -> Any:
    if isinstance(schema, dict):
        out = {k: _strict(v) for k, v in schema.items()}
        preserve = out.get("x-kubernetes-preserve-unknown-fields")
        if "properties" in out and "additionalProperties" not in out and not preserve:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_strict(item) for item in schema]
    return schema
