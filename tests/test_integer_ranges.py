"""Integers a cluster would refuse: the core definitions' int32/int64 formats become
ranges, for every check against them; kgen's own int64 fields are bounded too."""

from __future__ import annotations

from typing import Any

from kgen.check import core
from kgen.check.core import bounded_integers, check_object
from kgen.spec.pod import Toleration
from kgen.spec.validate import validate_model

INT64_MAX = 2**63 - 1


def test_int32_and_int64_integers_get_their_format_range():
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "format": "int32"},
            "b": {"type": ["integer", "null"], "format": "int64"},
            "c": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 2**40},
            "d": {"type": "number", "format": "double"},
            # A property named `format` is a schema, not the format keyword.
            "format": {"type": "string"},
        },
    }
    bounded = bounded_integers(schema)
    props = bounded["properties"]
    assert (props["a"]["minimum"], props["a"]["maximum"]) == (-(2**31), 2**31 - 1)
    assert (props["b"]["minimum"], props["b"]["maximum"]) == (-(2**63), INT64_MAX)
    assert (props["c"]["minimum"], props["c"]["maximum"]) == (0, 2**31 - 1)
    assert "minimum" not in props["d"]
    assert props["format"] == {"type": "string"}
    assert "minimum" not in schema["properties"]["a"], "the input is not changed"


def test_core_checks_refuse_what_the_api_server_would():
    version = core.DEFAULT_KUBERNETES_VERSION
    [problem] = check_object(
        {"runAsUser": 10**26},
        core.SECURITY_CONTEXT,
        path=("securityContext",),
        version=version,
    )
    assert problem.path == ("securityContext", "runAsUser")
    assert problem.message == (
        f"invalid SecurityContext: runAsUser {10**26} is out of range:"
        f" it must be {-(2**63)} to {INT64_MAX} (int64)"
    )
    assert (
        check_object(
            {"fsGroup": INT64_MAX},
            core.POD_SECURITY_CONTEXT,
            path=(),
            version=version,
        )
        == []
    )


def test_affinity_weights_keep_the_range_their_definition_states():
    term = {"weight": 101, "preference": {}}
    affinity = {
        "nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [term]}
    }
    [problem] = check_object(affinity, core.AFFINITY, path=("affinity",))
    assert problem.message == (
        "invalid Affinity: weight 101 is out of range: it must be 1 to 100"
    )
    term["weight"] = 100
    assert check_object(affinity, core.AFFINITY, path=("affinity",)) == []


def test_toleration_seconds_is_an_int64():
    spec, problems = validate_model(Toleration, {"tolerationSeconds": 2**63})
    assert spec is None
    assert [(p.path, p.message) for p in problems] == [
        (
            ("tolerationSeconds",),
            f"{2**63} is out of range: it must be {-(2**63)} to {INT64_MAX} (int64)",
        )
    ]
    assert validate_model(Toleration, {"tolerationSeconds": -(2**63)})[0] is not None


def _unbounded(schema: Any, path: str = "") -> list[str]:
    """The places of integers in `schema` without both a minimum and a maximum."""
    found: list[str] = []
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            found += _unbounded(item, f"{path}[{index}]")
    elif isinstance(schema, dict):
        kind = schema.get("type")
        integer = kind == "integer" or (isinstance(kind, list) and "integer" in kind)
        if integer and not ("minimum" in schema and "maximum" in schema):
            found.append(path)
        for key, value in schema.items():
            if key != "properties":
                found += _unbounded(value, f"{path}/{key}")
        for key, value in (schema.get("properties") or {}).items():
            found += _unbounded(value, f"{path}.{key}")
    return found


def test_every_integer_of_the_job_envelopes_has_its_formats_range():
    # A field of the operators' CRDs is an int32 or an int64 (runPolicy's
    # activeDeadlineSeconds and a TrainJob's: format int64, upstream CRDs); an
    # envelope's bare `type: integer` let a patch write 2**70, which the operator
    # cannot decode.
    from kgen.check.envelope import all_envelopes

    found = {
        name: places
        for name, (schema, _) in all_envelopes().items()
        # A quantity, not an int32 or int64: resource.Quantity reads any number.
        if (places := [p for p in _unbounded(schema) if "minResources" not in p])
    }
    assert found == {}
