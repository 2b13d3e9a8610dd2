"""The values a Kubernetes integer can hold, which the definitions only name: their
OpenAPI format (int32, int64), which neither jsonschema nor jsonschema-rs checks, so
`runAsUser: 1e26` passed and the API server refused the object. Each integer gets the
minimum and maximum of its format (or tighter ones a definition states in words), and a
value out of range is told with the whole range."""

from __future__ import annotations

import functools
from typing import Any

from kgen.check.core_definitions import definitions

# The OpenAPI formats of Kubernetes integers, and the values each can hold.
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
def bounded_definition(name: str, version: str) -> Any:
    """The core definition `name` of Kubernetes `version`, its integers bounded by
    their format and by the ranges it states in words: shared, never to be changed."""
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
