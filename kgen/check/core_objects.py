"""A core object the spec or the team writes, checked as the API server reads it: its
definition's schema (kgen.check.core), then what the definition only names, a
quantity's grammar, a byte field's base64 and integers written as whole floats
(kgen.check.core_formats), once the schema holds."""

from __future__ import annotations

from typing import Any

from kgen.check import core
from kgen.check.core_formats import format_problems
from kgen.errors import DataPath, Problem


def check_object(
    value: Any,
    definition: str,
    *,
    path: DataPath,
    version: str = core.DEFAULT_KUBERNETES_VERSION,
) -> list[Problem]:
    """Problems in `value` as a `definition`, located at `path` plus their own."""
    found = core.check_object(value, definition, path=path, version=version)
    return found or format_problems(value, definition, version, at=path)
