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
