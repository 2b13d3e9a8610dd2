"""Hostile inputs against trainer (filled in by the change that adds it)."""

from __future__ import annotations

from tests.hostile.case import Case

CASES: dict[str, Case] = {}
