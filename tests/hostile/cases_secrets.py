"""Hostile inputs against masking, user CRDs and per-environment cost (issue 14, second round)."""

from __future__ import annotations

from tests.hostile.case import Case

CASES: dict[str, Case] = {}
