"""Hostile inputs against whole pods, patches and the project's own objects (issue 18)."""

from __future__ import annotations

from tests.hostile.case import Case

CASES: dict[str, Case] = {}
