"""Problems found by data path become problems at file:line:col, one per place."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from kgen.errors import Problem
from kgen.load.jobs import JobSource
from kgen.merge.layers import Layer
from kgen.merge.origins import Origins
from kgen.pipeline.records import Finding
from kgen.rules.catalog import classified


def locate(
    job: JobSource,
    layers: Iterable[Layer],
    problems: list[Problem],
    origins: Origins | None = None,
) -> list[Problem]:
    """Give each problem its file:line:col and catalogue severity.

    Only problems need origins: each one's is traced back through the overlays along
    its own path (kgen.merge.origins), never by recording where every value came from.
    """
    if not problems:
        return []
    if origins is None:
        origins = Origins(job.doc.data, job.doc.positions, list(layers))
    located = []
    for problem in problems:
        origin = origins.nearest(problem.path, job.file)
        line, column = (
            (origin.key_line, origin.key_column)
            if problem.at_key
            else (origin.line, origin.column)
        )
        located.append(classified(problem.at(origin.file, line, column)))
    return located


def merge_environments(
    findings: list[Finding], env_count: dict[str, int]
) -> list[Problem]:
    """One problem per place, naming its environments unless it is in all of them."""
    merged: dict[
        tuple[str | None, int | None, int | None, str, str],
        tuple[Problem, str | None, list[str]],
    ] = {}
    for found, job_file, env in findings:
        problem = classified(found)
        key = (
            problem.file,
            problem.line,
            problem.column,
            problem.code,
            problem.message,
        )
        entry = merged.setdefault(key, (problem, job_file, []))
        if env not in entry[2]:
            entry[2].append(env)
    problems = []
    for problem, job_file, envs in merged.values():
        everywhere = job_file is not None and len(envs) >= env_count.get(job_file, 0)
        if envs and envs != [""] and not everywhere:
            label = "environment" if len(envs) == 1 else "environments"
            problem = replace(problem, context=f"{label} {', '.join(envs)}")
        problems.append(problem)
    return sorted(problems, key=lambda p: p.sort_key)
