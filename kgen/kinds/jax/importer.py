"""`kgen import` of an JAXJob: nothing beyond what every kind shares."""

from __future__ import annotations

from typing import Any


def read_fields(
    spec: dict[str, Any], target: str, out: dict[str, Any]
) -> dict[str, Any]:
    return {}
