"""One function per command: load, run the pipeline, write or compare, report; return
the exit code. No click here, so each command is testable as a plain function."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from kgen.discover import Project, load_project
from kgen.emitter import dump_documents
from kgen.errors import Problem, UsageError
from kgen.output import build_tree
from kgen.pipeline import RunResult, run
from kgen.reporters import REPORTERS
from kgen.writer import compare, unified_diff, with_index, write_tree

EXIT_OK = 0
EXIT_PROBLEMS = 1


@dataclass(frozen=True)
class Options:
    root: Path
    out: TextIO
    err: TextIO
    envs: tuple[str, ...] = ()
    report_format: str = "text"


def _report(options: Options, problems: list[Problem]) -> None:
    ordered = sorted(problems, key=lambda p: p.sort_key)
    REPORTERS[options.report_format](stream=options.err).report(ordered)


def _load_and_run(
    options: Options, *, jobs: tuple[str, ...] = ()
) -> tuple[Project | None, RunResult | None, list[Problem]]:
    project, problems = load_project(options.root)
    if project is None:
        return None, None, problems
    for env in options.envs:
        if env not in project.spec.environments:
            known = ", ".join(project.spec.environments)
            raise UsageError(f"unknown environment '{env}' (environments: {known})")
    names = [j.name for j in project.jobs]
    for job in jobs:
        if job not in names and not problems:
            raise UsageError(f"unknown job '{job}' (jobs: {', '.join(names)})")
    result = run(project, envs=options.envs or None, jobs=jobs or None)
    return project, result, problems + result.problems


def build(options: Options, *, check: bool = False, show_diff: bool = False) -> int:
    """Render every job for every environment; write the tree, or with `check` compare."""
    project, result, problems = _load_and_run(options)
    if (
        project is None
        or result is None
        or any(p.severity == "error" for p in problems)
    ):
        _report(options, problems)
        return EXIT_PROBLEMS
    output = project.spec.output
    files, tree_problems = build_tree(result, output=output)
    problems += tree_problems
    if tree_problems:
        _report(options, problems)
        return EXIT_PROBLEMS
    files = with_index(files, output)
    _report(options, problems)
    if check:
        return _check(options, project, files, show_diff=show_diff)
    summary, write_problems = write_tree(options.root, files, output=output)
    if write_problems:
        _report(options, write_problems)
        return EXIT_PROBLEMS
    options.err.write(
        f"kgen: {_scope(result)}: {len(summary.written)} files written,"
        f" {len(summary.removed)} removed, {summary.unchanged} unchanged\n"
    )
    return EXIT_OK


def _scope(result: RunResult) -> str:
    jobs = len({rendered.job.file for rendered in result.rendered})
    return (
        f"{jobs} jobs in {len(result.environments)} environments"
        f" ({len(result.rendered)} renders)"
    )


def _check(
    options: Options, project: Project, files: dict[str, str], *, show_diff: bool
) -> int:
    diff = compare(options.root, files, output=project.spec.output)
    if diff.clean:
        options.err.write(
            f"kgen: {project.spec.output}/ is up to date ({len(files)} files)\n"
        )
        return EXIT_OK
    for label, paths in (
        ("modified", diff.modified),
        ("missing", diff.missing),
        ("stale", diff.stale),
    ):
        for path in paths:
            options.err.write(f"{label}: {path}\n")
    if show_diff:
        options.out.write(unified_diff(options.root, files, diff))
    options.err.write(
        "kgen: the committed output is out of date; run `kgen build` and commit the result\n"
    )
    return EXIT_PROBLEMS


def validate(options: Options, *, strict: bool = False) -> int:
    """Load, validate and render everything in memory; write nothing.

    Warnings alone exit 0, unless `strict`."""
    _project, result, problems = _load_and_run(options)
    _report(options, problems)
    failing = [p for p in problems if strict or p.severity == "error"]
    if result is not None and not failing:
        options.err.write(f"kgen: {_scope(result)}: valid\n")
    return EXIT_PROBLEMS if failing else EXIT_OK


def render(options: Options, job: str) -> int:
    """Print one job's manifests for one environment as multi-document YAML."""
    _project, result, problems = _load_and_run(options, jobs=(job,))
    _report(options, problems)
    if result is None or any(p.severity == "error" for p in problems):
        return EXIT_PROBLEMS
    manifests = [m.body for rendered in result.rendered for m in rendered.manifests]
    options.out.write(dump_documents(manifests))
    return EXIT_OK
