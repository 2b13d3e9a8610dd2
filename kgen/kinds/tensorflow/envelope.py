"""TFJob's own fields in the output schema (kgen.check.envelope builds the rest)."""

from __future__ import annotations

from typing import Any

from kgen.kinds.targets import ApiTarget
from kgen.kinds.tensorflow import KIND


def fields(target: ApiTarget) -> dict[str, Any]:
    if not KIND.supports("successPolicy", target):
        return {}
    return {
        "successPolicy": {"enum": ["", "AllWorkers"]},
        "enableDynamicWorker": {"type": "boolean"},
    }
