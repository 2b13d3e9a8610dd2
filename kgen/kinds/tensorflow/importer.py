"""What `kgen import` reads of a TFJob beyond what every kind shares."""

from __future__ import annotations

from typing import Any

from kgen.errors import Problem


def read_fields(
    spec: dict[str, Any], target: str, out: dict[str, Any], notes: list[Problem]
) -> dict[str, Any]:
    """successPolicy and enableDynamicWorker as they are."""
    return {
        key: spec[key]
        for key in ("successPolicy", "enableDynamicWorker")
        if spec.get(key) not in (None, "")
    }
