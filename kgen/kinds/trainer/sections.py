"""`trainJob:` is only for a target that renders a TrainJob: elsewhere it is an error
naming the target, and the section is left out so the job's model does not report it a
second time as an unknown key."""

from __future__ import annotations

from typing import Any

from kgen.errors import Problem
from kgen.kinds.targets import TARGETS, TRAINER_TARGETS

SECTION = "trainJob"


def foreign_sections(data: Any, target: str) -> tuple[Any, list[Problem]]:
    """`data` without a `trainJob:` its target cannot take, and the error that says so."""
    if target in TRAINER_TARGETS or not isinstance(data, dict) or SECTION not in data:
        return data, []
    known = TARGETS.get(target)
    where = known.release_name if known else f"target {target}"
    trainers = ", ".join(sorted(TRAINER_TARGETS))
    problem = Problem(
        f"trainJob has no place in a job for {where}: only a TrainJob takes it",
        "trainjob-section-elsewhere",
        path=(SECTION,),
        at_key=True,
        hint=f"set it in the trainer environment's overlay (targets {trainers}), or remove it (`{SECTION}: null`)",
    )
    return {k: v for k, v in data.items() if k != SECTION}, [problem]
