"""Changing a job that is already committed under the same name does nothing in the
cluster: the operator never updates pods of a running job and never re-runs a finished
one (kubeflow-api.md §6.1, §7). Warn at the spec, so a PR can rename it (runId,
`jobNames: content-hash`) or say why not (`lint.ignore`)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

from kgen.discover import Project
from kgen.errors import Problem
from kgen.pipeline import Finding, RenderedJob, RunResult, locate, merge_environments
from kgen.writer import read_fingerprints

JOB_KINDS = ("PyTorchJob", "TFJob")


def fingerprints(result: RunResult, output: str) -> dict[str, str]:
    """Output path of each rendered job to a fingerprint of its `spec`."""
    marks = {}
    for rendered in result.rendered:
        job = rendered.manifests[0]
        if job.kind in JOB_KINDS:
            text = json.dumps(
                job.body.get("spec"), sort_keys=True, separators=(",", ":")
            )
            marks[f"{output}/{rendered.env.name}/{job.filename}"] = (
                "spec-sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]
            )
    return marks


def changed_in_place(project: Project, result: RunResult) -> list[Problem]:
    output = project.spec.output
    committed = read_fingerprints(project.root, output)
    findings = []
    for rendered in result.rendered:
        if "job-changed-in-place" in rendered.spec.lint.ignore:
            continue
        for path, mark in fingerprints(
            replace(result, rendered=[rendered]), output
        ).items():
            if committed.get(path) not in (None, mark):
                findings += [
                    Finding(p, rendered.job.file, rendered.env.name)
                    for p in _warn(rendered)
                ]
    return merge_environments(findings, {})


def _warn(rendered: RenderedJob) -> list[Problem]:
    name = rendered.manifests[0].name
    problem = Problem(
        f"{name} changes in place: a running job keeps its pods and a finished job never runs again",
        "job-changed-in-place",
        path=("name",),
        at_key=True,
        hint="set a new runId (or kgen.yaml jobNames: content-hash) to start a new job; or lint.ignore it if the job has not run",
    )
    return locate(rendered.job, rendered.layers, [problem])
