"""Hostile inputs against operator-release targets (issue 16)."""

from __future__ import annotations

from tests.hostile.case import Case

CASES: dict[str, Case] = {}
