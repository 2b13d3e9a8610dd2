"""Hostile inputs found by an independent attack on the hardening (issue 14)."""

from __future__ import annotations

from tests.hostile.case import Case

CASES: dict[str, Case] = {}
