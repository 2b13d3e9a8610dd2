"""Kubernetes resource quantities: validation and comparison.

The grammar is apimachinery's `resource.Quantity` (k8s.io/apimachinery/pkg/api/resource):
a signed decimal with an optional binary (Ki..Ei), decimal (n, u, m, k, M..E) or exponent
suffix.
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal, InvalidOperation

_QUANTITY = re.compile(
    r"^(?P<num>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)
_SCALE = {
    "Ki": Decimal(2) ** 10, "Mi": Decimal(2) ** 20, "Gi": Decimal(2) ** 30,
    "Ti": Decimal(2) ** 40, "Pi": Decimal(2) ** 50, "Ei": Decimal(2) ** 60,
    "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": Decimal(1),
    "k": Decimal("1e3"), "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"),
    "P": Decimal("1e15"), "E": Decimal("1e18"),
}  # fmt: skip
# What a value that is no quantity is told, in a job spec and in a team object.
NOT_A_QUANTITY = "is not a Kubernetes quantity (such as 500m, 2 or 4Gi)"
QUANTITY_HINT = (
    "a number with an optional suffix, as the API server parses it: Ki, Mi, Gi, Ti,"
    " Pi, Ei (powers of 1024), m, k, M, G, T, P, E (of 1000), or an exponent (1e3):"
    " 4Gi or 4G, not 4GB"
)


# The largest and smallest exponent (of its first digit) a quantity is read with: far
# past int64, where every check of a quantity refuses it, and far from the decimal
# module's limit (999,999), so sums of such quantities stay numbers.
_FARTHEST = 1_000
_FAR = Decimal(10) ** _FARTHEST


@functools.lru_cache(maxsize=4096)
def parse_quantity(text: str) -> Decimal | None:
    """The quantity's value in base units, or None when `text` is not a quantity."""
    match = _QUANTITY.fullmatch(text)
    if match is None:
        return None
    suffix = match["suffix"] or ""
    try:
        number = Decimal(match["num"])
        exponent = int(suffix[1:]) if len(suffix) > 1 and suffix[0] in "eE" else 0
    except (InvalidOperation, ValueError):
        return None
    scale = _SCALE.get(suffix, Decimal(1))  # an exponent (e3, e0) is no scale
    if abs(exponent) <= _FARTHEST and abs(number.adjusted()) <= _FARTHEST:
        return (
            number * scale * (Decimal(10) ** exponent) if exponent else number * scale
        )
    # Far past any bound a quantity has (int64), or below a nano. Computed, `1e1000000`
    # (or a million digits and `E`) raised decimal.Overflow, an internal error.
    magnitude = number.adjusted() + scale.adjusted() + exponent
    if not number or magnitude < -_FARTHEST:
        return Decimal(0).copy_sign(number)
    if magnitude > _FARTHEST:
        return _FAR.copy_sign(number)
    return number.scaleb(exponent) * scale


# Quantities accepted as strings, with their text: every spec of a run writes the
# same few ("4", "8Gi"), and each of its merged specs is validated. Bounded.
_ACCEPTED: dict[str, str] = {}
_MAX_ACCEPTED = 4096
_LARGEST = Decimal("9.2e18")


def quantity_text(value: object) -> str:
    """Accept what users write (`cpu: 2`, `cpu: 0.5`, `memory: 4Gi`) as a quantity string."""
    if type(value) is str:
        found = _ACCEPTED.get(value)
        if found is not None:
            return found
        text = _quantity_text(value)
        if len(_ACCEPTED) >= _MAX_ACCEPTED:
            _ACCEPTED.clear()
        _ACCEPTED[value] = text
        return text
    return _quantity_text(value)


def _quantity_text(value: object) -> str:
    if isinstance(value, bool):
        raise ValueError("expected a quantity such as 500m, 2 or 4Gi, got a boolean")
    if isinstance(value, int):
        text = str(value)
    elif isinstance(value, float):
        text = repr(value)
    elif isinstance(value, str):
        text = value.strip()
    else:
        raise ValueError("expected a quantity such as 500m, 2 or 4Gi")
    amount = parse_quantity(text)
    if amount is None:
        raise ValueError(f"'{text}' {NOT_A_QUANTITY}")
    if amount < 0:
        raise ValueError(f"'{text}' is negative; resources must be zero or more")
    if amount > _LARGEST:
        raise ValueError(f"'{text}' is too large for a Kubernetes quantity")
    return text
