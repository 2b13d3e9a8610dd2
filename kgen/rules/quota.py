"""GPU quotas per environment (kgen.yaml `gpuQuota`): the GPUs all jobs of an
environment ask for together, elastic jobs at their maximum size: the load facts
`kgen list` shows (kgen.pipeline.facts), each pod's effective request, so a sidecar's
GPUs count."""

from __future__ import annotations

from collections.abc import Iterator

from kgen.errors import Problem
from kgen.load.jobs import located
from kgen.load.project import Project
from kgen.pipeline.records import Finding, RunResult


def check_quotas(project: Project, result: RunResult) -> Iterator[Finding]:
    for env, settings in project.spec.environments.items():
        if settings.gpu_quota is None:
            continue
        loads = [r.facts.load for r in result.renders if r.env.name == env]
        wanted = sum(load.gpus for load in loads)
        if wanted > settings.gpu_quota:
            biggest = ", ".join(
                f"{x.job} {x.gpus}"
                for x in sorted(loads, key=lambda x: -x.gpus)[:3]
                if x.gpus
            )
            problem = Problem(
                f"environment {env} asks for {wanted} GPUs at most, more than its quota of {settings.gpu_quota}",
                "gpu-quota",
                path=("environments", env, "gpuQuota"),
                hint=f"largest: {biggest}; see `kgen list --env {env}`",
            )
            yield Finding(located(problem, project.doc), None, "")
