"""TFJob for every API target (kubeflow-api.md §2, §3.3, §7)."""

from __future__ import annotations

from typing import Any

from kgen.errors import Problem
from kgen.render.base import Environment, Manifest, job_manifest
from kgen.render.pod import replica_specs
from kgen.render.runpolicy import cannot_express, place_run_policy, supported
from kgen.spec.job import TFJobSpec

CONTAINER = "tensorflow"
PORT_NAME = "tfjob-port"
PORT = 2222
DEFAULT_RESTART = "Never"
ROLE_KEYS = {"chief": "Chief", "worker": "Worker", "ps": "PS", "evaluator": "Evaluator"}


def render_tfjob(
    spec: TFJobSpec, env: Environment
) -> tuple[list[Manifest], list[Problem]]:
    target = env.target
    body_spec: dict[str, Any] = {}
    problems = place_run_policy(
        body_spec,
        spec.run_policy,
        clean_pod_policy=clean_pod_policy(
            spec, default=target.tf_default_clean_pod_policy
        ),
        target=target,
    )
    for key, value in (
        ("successPolicy", spec.success_policy),
        ("enableDynamicWorker", spec.enable_dynamic_worker),
    ):
        if value is None:
            continue
        if supported((key,), target):
            body_spec[key] = value
        else:
            problems.append(cannot_express((key,), target))
    body_spec["tfReplicaSpecs"] = replica_specs(
        spec,
        ROLE_KEYS,
        container=CONTAINER,
        port_name=PORT_NAME,
        port=PORT,
        default_restart=DEFAULT_RESTART,
    )
    return [job_manifest("TFJob", spec, env, body_spec)], problems


def clean_pod_policy(spec: TFJobSpec, *, default: str) -> str:
    """PS pods never exit by themselves: with `None` they run forever after success
    (kubeflow-api.md §7), so a job with parameter servers defaults to `Running`."""
    if spec.run_policy.clean_pod_policy:
        return spec.run_policy.clean_pod_policy
    return "Running" if spec.roles.ps is not None else default
