"""Check free-form Kubernetes objects in a spec against the core API definitions.

kubernetes-validate ships the OpenAPI definitions of each Kubernetes release as JSON
Schema, "strict" variants included (unknown fields are errors). kgen loads them once per
process (about 15 ms) and compiles one validator per definition, because the library's own
`validate()` re-reads the 1.4 MB file on every call.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

from kgen.errors import DataPath, Problem
from kgen.validate import suggest

DEFAULT_KUBERNETES_VERSION = "1.35"

# Spec fields that hold a core object, and the definition each must satisfy.
AFFINITY = "io.k8s.api.core.v1.Affinity"
SECURITY_CONTEXT = "io.k8s.api.core.v1.SecurityContext"
POD_SECURITY_CONTEXT = "io.k8s.api.core.v1.PodSecurityContext"
METRIC_SPEC = "io.k8s.api.autoscaling.v2.MetricSpec"


def supported_versions() -> list[str]:
    root = resources.files("kubernetes_validate") / "kubernetes-json-schema"
    found = [
        p.name[1:].removesuffix(".0-local-strict")
        for p in root.iterdir()
        if p.name.endswith("-local-strict")
    ]
    return sorted(found, key=lambda v: tuple(int(n) for n in v.split(".")))


def check_version(value: str) -> str | None:
    known = supported_versions()
    if value not in known:
        return f"kgen can validate against Kubernetes {known[0]} to {known[-1]}, not {value}"
    return None


@functools.cache
def definitions(version: str) -> dict[str, Any]:
    """The strict core definitions of Kubernetes `version` (`1.33`), by name."""
    root = resources.files("kubernetes_validate") / "kubernetes-json-schema"
    folder = root / f"v{version}.0-local-strict"
    with folder.joinpath("_definitions.json").open(encoding="utf-8") as handle:
        loaded: dict[str, Any] = json.load(handle)["$defs"]
    return loaded


@functools.cache
def validator_for(
    definition: str, version: str = DEFAULT_KUBERNETES_VERSION
) -> Draft202012Validator:
    defs = definitions(version)
    return Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": defs})


def check_object(
    value: Any,
    definition: str,
    *,
    path: DataPath,
    version: str = DEFAULT_KUBERNETES_VERSION,
) -> list[Problem]:
    """Problems in `value` as a `definition`, located at `path` plus the error's own path."""
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
        problems.append(
            Problem(f"invalid {kind}: {error.message}", "invalid-value", path=where)
        )
    return problems
