"""A job whose `framework:` names no kind: what else is wrong with it is still said.

The framework picks the model a spec is validated with, so with an unknown one the spec
is not validated; its top-level keys are still checked against those every kind accepts,
so a stray key is not found only after the framework is fixed.
"""

from __future__ import annotations

import functools
from typing import Any

from kgen.errors import Problem
from kgen.kinds import FRAMEWORKS, kind_for
from kgen.spec.keys import spelled_like
from kgen.spec.placed import unknown_key_hint


def framework_hint(framework: object) -> str:
    """The framework `framework` is a slip of, or every framework there is."""
    # Lower case: `MPI` is the mpi framework written as its kind is.
    name = framework.lower() if isinstance(framework, str) else None
    close = spelled_like(name, FRAMEWORKS) if name else None
    return f"did you mean '{close}'?" if close else f"use {' or '.join(FRAMEWORKS)}"


def unknown_top_keys(framework: object, data: dict[str, Any]) -> list[Problem]:
    """Top-level keys of `data` that no kind's spec accepts, hinted as for the closest kind."""
    accepted = _accepted()
    name = framework.lower() if isinstance(framework, str) else ""
    model = kind_for(spelled_like(name, FRAMEWORKS) or FRAMEWORKS[0]).model()
    return [
        Problem(
            f"unknown key '{key}'",
            "unknown-key",
            path=(key,),
            hint=unknown_key_hint(key, model, ()),
            at_key=True,
        )
        for key in data
        if isinstance(key, str) and key not in accepted
    ]


@functools.cache
def _accepted() -> frozenset[str]:
    return frozenset(
        info.alias or field
        for framework in FRAMEWORKS
        for field, info in kind_for(framework).model().model_fields.items()
    )
