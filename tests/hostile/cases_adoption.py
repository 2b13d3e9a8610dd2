"""Hostile inputs against installing and adopting kgen: init, base, Argo CD and Flux (issue 17)."""

from __future__ import annotations

from tests.hostile.case import Case

CASES: dict[str, Case] = {}
