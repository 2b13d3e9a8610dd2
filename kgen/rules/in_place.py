"""Changing a job that is already committed under the same name does nothing in the
cluster: the operator never updates pods of a running job and never re-runs a finished
one (kubeflow-api.md §6.1, §7). Warn at the spec, so a PR can rename it (runId,
`jobNames: content-hash`) or say why not (`lint.ignore`)."""

from __future__ import annotations

from kgen.errors import Problem
from kgen.load.project import Project
from kgen.output.index import read_fingerprints
from kgen.pipeline.locate import locate, merge_environments
from kgen.pipeline.records import Finding, Render, RunResult


def fingerprints(result: RunResult, output: str) -> dict[str, str]:
    """Output path of each rendered job to a fingerprint of its `spec`."""
    # One comprehension, no call a render: 4,000 at 1,000 jobs, twice a build.
    return {
        f"{output}/{render.env.name}/{marked[0]}": marked[1]
        for render in result.renders
        if (marked := render.facts.fingerprint)
    }


def changed_in_place(
    project: Project, result: RunResult, base: dict[str, str] | None = None
) -> list[Problem]:
    """Jobs whose spec differs from the committed one: the index in the working tree,
    or `base` (`<env>/<file>` to mark, from a render of the base commit), since a pull
    request already carries the rebuilt index."""
    output = project.spec.output
    marked = [
        (render, f"{output}/{render.env.name}/{fingerprint[0]}", fingerprint[1])
        for render in result.renders
        if (fingerprint := render.facts.fingerprint)
        and "job-changed-in-place" not in render.facts.ignore
    ]
    if base is None:
        committed = read_fingerprints(
            project.root, output, only=[path for _, path, _ in marked]
        )
    else:
        committed = {f"{output}/{key}": mark for key, mark in base.items()}
    findings = []
    for render, path, mark in marked:
        found = committed.get(path)
        # Most marks are the committed ones: those need no closer look.
        if found is not None and found != mark and _differs(found, mark):
            findings += [
                Finding(p, render.job.file, render.env.name) for p in _warn(render)
            ]
    return merge_environments(findings, result.job_environments())


def _differs(committed: str | None, mark: str) -> bool:
    """Whether a committed mark says the spec changed; a mark of another scheme (from
    an older kgen) says nothing either way, and the next build rewrites it."""
    if committed is None:
        return False
    return committed.partition(":")[0] == mark.partition(":")[0] and committed != mark


def _warn(render: Render) -> list[Problem]:
    problem = Problem(
        f"{render.facts.job_name} changes in place: a running job keeps its pods and a finished job never runs again",
        "job-changed-in-place",
        path=("name",),
        at_key=True,
        hint="set a new runId (or kgen.yaml jobNames: content-hash) to start a new job; or lint.ignore it if the job has not run",
    )
    return locate(render.job, render.layers, [problem])
