"""XGBoostJob's spec: the run policy and the replica specs, nothing of its own."""

from __future__ import annotations

from typing import Any

from kgen.errors import Problem
from kgen.kinds.xgboost import KIND
from kgen.render.base import Environment
from kgen.render.pod import replica_specs
from kgen.render.runpolicy import place_run_policy
from kgen.spec.job import JobSpec


def render(spec: JobSpec, env: Environment) -> tuple[dict[str, Any], list[Problem]]:
    body_spec: dict[str, Any] = {}
    problems = place_run_policy(body_spec, spec, KIND, env.target)
    body_spec[KIND.replica_key] = replica_specs(spec, KIND)
    return body_spec, problems


def live_pointers(spec: JobSpec) -> list[str]:
    """Nothing in an XGBoostJob changes in the cluster by design."""
    return []
