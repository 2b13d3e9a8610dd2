"""`kgen import` of an XGBoostJob: nothing beyond what every kind shares."""

from __future__ import annotations

from typing import Any

from kgen.errors import Problem


def read_fields(
    spec: dict[str, Any], target: str, out: dict[str, Any], notes: list[Problem]
) -> dict[str, Any]:
    return {}
