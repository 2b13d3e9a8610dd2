"""Hostile input files: how kgen reads jobs, overlays, kgen.yaml, CRDs and imports."""

from __future__ import annotations

from tests.hostile.case import Case

CASES: dict[str, Case] = {}
