"""Check free-form Kubernetes objects in a spec against the core API definitions.

kubernetes-validate ships the OpenAPI definitions of each Kubernetes release as JSON
Schema, "strict" variants included (unknown fields are errors). kgen loads them once per
process (about 15 ms) and compiles one validator per definition, because the library's own
`validate()` re-reads the 1.4 MB file on every call.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgen.check.lean import without_descriptions
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


@functools.cache
def _schema_root() -> Path:
    """kubernetes-validate's schema folder, found without importing the package (its
    import loads jsonschema, referencing and packaging: a fifth of start-up)."""
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:  # pragma: no cover
        raise RuntimeError("kubernetes-validate is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "kubernetes-json-schema"


def supported_versions() -> list[str]:
    root = _schema_root()
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
    root = _schema_root()
    folder = root / f"v{version}.0-local-strict"
    with folder.joinpath("_definitions.json").open(encoding="utf-8") as handle:
        loaded: dict[str, Any] = json.load(handle)["$defs"]
    return loaded


_DEFS = "#/$defs/"


def with_definitions(schema: dict[str, Any], version: str) -> dict[str, Any]:
    """`schema` with the core definitions it references, directly or not, and no others:
    compiling a validator over all 700 costs about 20 ms, over the 10 to 120 one kind
    needs a few. Their integers are bounded (bounded_integers)."""
    needed = _needed(schema, version)
    return {
        **schema,
        "$defs": {name: _bounded_definition(name, version) for name in needed},
    }


def lean_with_definitions(schema: dict[str, Any], version: str) -> dict[str, Any]:
    """without_descriptions(with_definitions(schema, version)), key for key, with each
    definition made lean once per process and shared by every schema that needs it:
    the nine output schemas of a run share the pod spec's hundred definitions, and
    each made them lean again."""
    lean: dict[str, Any] = without_descriptions({**schema, "$defs": {}})
    # In place of the empty map: where `schema` had `$defs`, or last, as before.
    lean["$defs"] = {
        name: _lean_definition(name, version) for name in _needed(schema, version)
    }
    return lean


def _needed(schema: dict[str, Any], version: str) -> list[str]:
    """The names of the core definitions `schema` references, directly or not, sorted."""
    defs = definitions(version)
    needed: set[str] = set()
    pending = _references(schema)
    while pending:
        name = pending.pop()
        if name not in needed and name in defs:
            needed.add(name)
            pending += _definition_references(name, version)
    return sorted(needed)


# The OpenAPI formats of Kubernetes integers, and the values each can hold. The
# definitions only name the format, which neither jsonschema nor jsonschema-rs checks, so
# `runAsUser: 1e26` passed and the API server refused the object.
INTEGER_RANGES: dict[str, tuple[int, int]] = {
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
# Ranges a definition states only in words, which the API server enforces: "weight
# associated with matching the corresponding ..., in the range 1-100".
_STATED_RANGES: dict[tuple[str, str], tuple[int, int]] = {
    ("io.k8s.api.core.v1.PreferredSchedulingTerm", "weight"): (1, 100),
    ("io.k8s.api.core.v1.WeightedPodAffinityTerm", "weight"): (1, 100),
    # "Number of port to expose on the pod's IP address. This must be a valid port
    # number, 0 < x < 65536." (a sidecar's or the trainer's own ports, issue 18)
    ("io.k8s.api.core.v1.ContainerPort", "containerPort"): (1, 65535),
    ("io.k8s.api.core.v1.ContainerPort", "hostPort"): (1, 65535),
}


def bounded_integers(schema: Any) -> Any:
    """A copy of `schema` where every integer of format int32 or int64 has the minimum
    and maximum of its format (or tighter ones it states). For core definitions and
    CRD schemas alike."""
    if isinstance(schema, list):
        return [bounded_integers(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: bounded_integers(value) for key, value in schema.items()}
    fmt, kind = out.get("format"), out.get("type")
    bounds = INTEGER_RANGES.get(fmt) if isinstance(fmt, str) else None
    if bounds is not None and (
        kind == "integer" or (isinstance(kind, list) and "integer" in kind)
    ):
        _tighten(out, *bounds)
    return out


def _tighten(schema: dict[str, Any], low: int, high: int) -> None:
    minimum, maximum = schema.get("minimum"), schema.get("maximum")
    schema["minimum"] = (
        low if not isinstance(minimum, int | float) else max(minimum, low)
    )
    schema["maximum"] = (
        high if not isinstance(maximum, int | float) else min(maximum, high)
    )


@functools.cache
def _lean_definition(name: str, version: str) -> Any:
    """One bounded definition without its prose: shared, never to be changed."""
    return without_descriptions(_bounded_definition(name, version))


@functools.cache
def _bounded_definition(name: str, version: str) -> Any:
    bounded = bounded_integers(definitions(version)[name])
    for (definition, field), (low, high) in _STATED_RANGES.items():
        if definition == name and field in bounded.get("properties", {}):
            _tighten(bounded["properties"][field], low, high)
    return bounded


def range_message(error: Any) -> str | None:
    """A minimum or maximum error in words with the whole range, else None."""
    if error.validator not in ("minimum", "maximum") or not isinstance(
        error.schema, dict
    ):
        return None
    low, high = error.schema.get("minimum"), error.schema.get("maximum")
    names = [part for part in error.absolute_path if isinstance(part, str)]
    what = names[-1] if names else "the value"
    if low is None or high is None:
        return None
    kind = error.schema.get("format")
    whole = isinstance(kind, str) and INTEGER_RANGES.get(kind) == (low, high)
    limits = f"{low} to {high}" + (f" ({kind})" if whole else "")
    return f"{what} {error.instance} is out of range: it must be {limits}"


@functools.cache
def _definition_references(name: str, version: str) -> tuple[str, ...]:
    """What one core definition refers to: the pod spec's hundred definitions are shared
    by every kind, so each is walked once, not once per validator."""
    return tuple(_references(definitions(version)[name]))


def _references(schema: Any) -> list[str]:
    """Names of the definitions `schema` refers to (`$ref: #/$defs/<name>`)."""
    found: list[str] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(_DEFS):
                found.append(ref[len(_DEFS) :])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def definition_schema(definition: str, version: str) -> dict[str, Any]:
    """A schema for one core definition, with what it references, to check with."""
    return stored_schema(
        definition_key(definition, version),
        lambda: lean_with_definitions({"$ref": _DEFS + definition}, version),
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
