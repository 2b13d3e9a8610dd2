"""Hostile output trees: the index, the lock, staging folders and the output root."""

from __future__ import annotations

from tests.hostile.case import Case

CASES: dict[str, Case] = {}
