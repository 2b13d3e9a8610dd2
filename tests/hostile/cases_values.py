"""Hostile values: what reaches the output, secrets, and the merge."""

from __future__ import annotations

from tests.hostile.case import Case

CASES: dict[str, Case] = {}
