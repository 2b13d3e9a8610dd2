from __future__ import annotations

from decimal import Decimal

import pytest

from kgen.spec.quantity import parse_quantity, quantity_text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1),
        ("500m", Decimal("0.5")),
        ("4Gi", 4 * 2**30),
        ("1.5", Decimal("1.5")),
        ("2k", 2000),
        ("1e3", 1000),
        ("100Mi", 100 * 2**20),
        (".5", Decimal("0.5")),
        ("0", 0),
    ],
)
def test_parse(text: str, value: object):
    assert parse_quantity(text) == value


@pytest.mark.parametrize(
    "text", ["", "two", "4GB", "1.2.3", "Gi", "1 Gi", "1ki", "--1"]
)
def test_not_quantities(text: str):
    assert parse_quantity(text) is None


def test_numbers_users_write_become_strings():
    assert quantity_text(2) == "2"
    assert quantity_text(0.5) == "0.5"
    assert quantity_text(" 4Gi ") == "4Gi"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (True, "got a boolean"),
        ("-1", "is negative"),
        ("lots", "is not a Kubernetes quantity"),
        ("99E", "too large"),
        ([1], "expected a quantity"),
    ],
)
def test_rejected(value: object, message: str):
    with pytest.raises(ValueError, match=message):
        quantity_text(value)


def test_a_job_s_quantity_that_is_none_gets_the_grammar_as_its_hint():
    # A team object's `memory: 4GB` had this hint (kgen.check.core_formats); a job's,
    # the same mistake, had none.
    from kgen.kinds.pytorch.spec import PyTorchJobSpec
    from kgen.spec.validate import validate_model

    job = {
        "name": "train",
        "framework": "pytorch",
        "image": "x:1",
        "resources": {"requests": {"memory": "4GB"}},
        "roles": {"master": {"replicas": 1}},
    }
    _, problems = validate_model(PyTorchJobSpec, job)
    (problem,) = problems
    assert (problem.code, problem.message, problem.hint) == (
        "invalid-value",
        "'4GB' is not a Kubernetes quantity (such as 500m, 2 or 4Gi)",
        "a number with an optional suffix, as the API server parses it: Ki, Mi, Gi,"
        " Ti, Pi, Ei (powers of 1024), m, k, M, G, T, P, E (of 1000), or an exponent"
        " (1e3): 4Gi or 4G, not 4GB",
    )
