"""What every command shares: its options, what it found, and reporting that once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from kgen.errors import Problem
from kgen.load.project import Project
from kgen.pipeline.records import RunResult
from kgen.report.formats import REPORTERS, pick_format

EXIT_OK = 0
EXIT_PROBLEMS = 1


@dataclass(frozen=True)
class Options:
    root: Path
    out: TextIO
    err: TextIO
    envs: tuple[str, ...] = ()
    report_format: str = "text"
    crds: tuple[str, ...] = ()
    cache: bool = True


@dataclass
class Outcome:
    """What a command found, reported once at its end."""

    project: Project | None = None
    result: RunResult | None = None
    problems: list[Problem] | None = None

    @property
    def failed(self) -> bool:
        return any(p.severity == "error" for p in self.problems or [])


def report(options: Options, outcome: Outcome, *, to_stderr: bool = False) -> None:
    reporter = REPORTERS[pick_format(options.report_format)]
    stream = options.out if reporter.to_stdout and not to_stderr else options.err
    problems = sorted(outcome.problems or [], key=lambda p: p.sort_key)
    reporter(stream=stream).report(problems, checked=checked_files(outcome.project))


def checked_files(project: Project | None) -> list[str]:
    if project is None:
        return []
    return [
        project.doc.file,
        *(o.doc.file for o in project.overlays.values()),
        *(j.file for j in project.jobs),
    ]


def run_scope(result: RunResult) -> str:
    """What a run covered: `3 jobs in 2 environments (6 renders)`."""
    jobs = len({render.job.file for render in result.renders})
    envs = len({render.env.name for render in result.renders} or result.environments)
    renders = len(result.renders)
    return (
        f"{_count(jobs, 'job')} in {_count(envs, 'environment')}"
        f" ({_count(renders, 'render')})"
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
