"""kgen.yaml's Flux durations against what Go's time.ParseDuration takes: at most an
int64 of nanoseconds, checked in time linear in the value, as long as a file may be."""

from __future__ import annotations

import re
import time

import pytest

from kgen.spec.gitops import _duration

PAST = "is longer than a Kubernetes duration may be (2562047h)"


@pytest.mark.parametrize(
    ("value", "past"),
    [
        ("2562047h47m16.854775807s", False),  # time.Duration's maximum
        ("2562047h47m16.854775808s", True),
        ("9223372036.8547758070000000000001s", False),  # past the 20th digit
        ("9223372036.8547758071s", True),
        (f"{'0' * 5000}1h", False),
        (f"1{'0' * 30}h", True),
    ],
)
def test_a_duration_is_past_go_int64_exactly_where_it_is(value: str, past: bool):
    problem = _duration(value)
    assert (problem is not None and PAST in problem) is past


def test_a_mebibyte_of_short_parts_costs_little_more_than_matching_it():
    # In Fractions each part cost as much as the whole pattern match of 30 of them:
    # a kgen.yaml of `interval: 1ms1ms...` took seconds to load.
    value = "1ms" * 300_000
    start = time.perf_counter()
    assert re.fullmatch(r"([0-9]+(\.[0-9]+)?(ms|s|m|h))+", value)
    floor = time.perf_counter() - start
    start = time.perf_counter()
    assert _duration(value) is None
    assert time.perf_counter() - start < 8 * floor + 0.1
