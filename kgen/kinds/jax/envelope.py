"""JAXJob has no fields of its own beyond its replica specs and run policy."""

from __future__ import annotations

from typing import Any

from kgen.kinds.targets import ApiTarget


def fields(target: ApiTarget) -> dict[str, Any]:
    return {}
