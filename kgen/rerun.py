"""Changing a job that is already committed under the same name does nothing in the
cluster: the operator never updates pods of a running job and never re-runs a finished
one (kubeflow-api.md §6.1, §7). Warn at the spec, so a PR can rename it (runId,
`jobNames: content-hash`) or say why not (`lint.ignore`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kgen.discover import Project
from kgen.errors import Problem
from kgen.pipeline import Finding, RenderedJob, RunResult, locate, merge_environments
from kgen.rule_catalog import classified

JOB_KINDS = ("PyTorchJob", "TFJob")


def changed_in_place(project: Project, result: RunResult) -> list[Problem]:
    findings = []
    for rendered in result.rendered:
        job = rendered.manifests[0]
        if (
            job.kind not in JOB_KINDS
            or "job-changed-in-place" in rendered.spec.lint.ignore
        ):
            continue
        committed = _committed_spec(
            project.root / project.spec.output / rendered.env.name / job.filename
        )
        if committed is not None and committed != job.body.get("spec"):
            findings += [
                Finding(p, rendered.job.file, rendered.env.name)
                for p in _warn(rendered)
            ]
    return merge_environments(findings, {})


def _committed_spec(path: Path) -> Any:
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None
    return document.get("spec") if isinstance(document, dict) else None


def _warn(rendered: RenderedJob) -> list[Problem]:
    name = rendered.manifests[0].name
    problem = Problem(
        f"{name} changes in place: a running job keeps its pods and a finished job never runs again",
        "job-changed-in-place",
        path=("name",),
        at_key=True,
        hint="set a new runId (or kgen.yaml jobNames: content-hash) to start a new job; or lint.ignore it if the job has not run",
    )
    return [classified(p) for p in locate(rendered.job, rendered.layers, [problem])]
