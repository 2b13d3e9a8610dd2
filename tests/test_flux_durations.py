"""kgen.yaml's Flux durations against what Go's time.ParseDuration takes: at most an
int64 of nanoseconds (the time of a value as long as a file may be is
tests/hostile's case flux-interval-a-mebibyte-of-parts, bounded by make hardening)."""

from __future__ import annotations

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
