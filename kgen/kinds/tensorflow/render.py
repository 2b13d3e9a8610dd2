"""TFJob's spec for every API target (kubeflow-api.md §2, §3.3, §7)."""

from __future__ import annotations

from typing import Any

from kgen.errors import Problem
from kgen.kinds.tensorflow import KIND
from kgen.kinds.tensorflow.spec import own
from kgen.render.base import Environment
from kgen.render.pod import replica_specs
from kgen.render.runpolicy import cannot_express, place_run_policy
from kgen.spec.job import JobSpec


def render(spec: JobSpec, env: Environment) -> tuple[dict[str, Any], list[Problem]]:
    job = own(spec)
    target = env.target
    body_spec: dict[str, Any] = {}
    problems = place_run_policy(body_spec, job, KIND, target)
    for key, value in (
        ("successPolicy", job.success_policy),
        ("enableDynamicWorker", job.enable_dynamic_worker),
    ):
        if value is None:
            continue
        if KIND.supports(key, target):
            body_spec[key] = value
        else:
            problems.append(cannot_express((key,), target))
    body_spec[KIND.replica_key] = replica_specs(job, KIND)
    return body_spec, problems


def live_pointers(spec: JobSpec) -> list[str]:
    """Nothing in a TFJob changes in the cluster by design."""
    return []
