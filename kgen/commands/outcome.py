"""What every command shares: its options (kgen.commands.options), loading the project and running the
pipeline, what it found, and reporting that once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kgen.commands.options import EXIT_OK as EXIT_OK
from kgen.commands.options import EXIT_PROBLEMS as EXIT_PROBLEMS
from kgen.commands.options import Options as Options
from kgen.commands.scope import names_team_objects, scope_for
from kgen.descriptors import limit_hinted
from kgen.errors import Problem, UsageError, usage_text
from kgen.load.project import Project, load_project
from kgen.output.root import argocd_problems, flux_problems, output_problems
from kgen.pipeline.records import RunResult, TextSink
from kgen.pipeline.run import run
from kgen.report.formats import REPORTERS, pick_format
from kgen.rules.in_place import changed_in_place

# The one code kgen.rules.in_place reports.
IN_PLACE = "job-changed-in-place"

if TYPE_CHECKING:
    # Only a run with a base needs them (start-up of a one-spec validate).
    from kgen.base.snapshot import Snapshot


class Outcome:
    """What a command found, reported once at its end. A plain class: as a dataclass
    its methods were compiled from source at import (0.3 ms of every run)."""

    def __init__(
        self,
        project: Project | None = None,
        result: RunResult | None = None,
        problems: list[Problem] | None = None,
        base: Snapshot | None = None,
    ) -> None:
        self.project = project
        self.result = result
        self.problems = problems
        self.base = base

    @property
    def failed(self) -> bool:
        return any(p.severity == "error" for p in self.problems or [])


def report(options: Options, outcome: Outcome, *, to_stderr: bool = False) -> None:
    reporter = REPORTERS[pick_format(options.report_format)]
    stream = options.out if reporter.to_stdout and not to_stderr else options.err
    problems = sorted(outcome.problems or [], key=lambda p: p.sort_key)
    # A descriptor kgen could not open: the problem's hint names the open-file limit.
    problems = limit_hinted(problems)
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
        f"{count(jobs, 'job')} in {count(envs, 'environment')}"
        f" ({count(renders, 'render')})"
    )


# A usage error names what exists; a project of thousands of jobs would print them
# all, so the list stops here and says how many more there are.
LISTED = 20


def listed(names: list[str]) -> str:
    """`a, b, c` or `a, …, t and 80 more`: the names a usage error offers."""
    shown = ", ".join(names[:LISTED])
    rest = len(names) - LISTED
    return f"{shown} and {rest} more" if rest > 0 else shown


def count(number: int, noun: str) -> str:
    """`1 file`, `2 files`."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def load_and_run(
    options: Options,
    *,
    jobs: tuple[str, ...] = (),
    paths: tuple[Path, ...] = (),
    keep: bool = False,
    emit: bool = False,
    texts: bool = True,
    output: bool = False,
    sink_for: Callable[[str], TextSink] | None = None,
    loaded: Callable[[Project], object] | None = None,
) -> Outcome:
    """Load the project and run the pipeline; `keep` keeps full renders, `emit` their
    YAML (`texts` False: digests where the cache has them; see pipeline.run); `output`
    checks where the output root is too. With a base (Options.base), the base commit
    is rendered too. `sink_for` gives, for the output root once checked, what takes
    each render's texts as they come (kgen.output.spool); `loaded` hears of the project
    once it is loaded, before the run."""
    outcome = _load_and_run(
        options,
        jobs=jobs,
        paths=paths,
        keep=keep,
        emit=emit,
        texts=texts,
        output=output,
        sink_for=sink_for,
        loaded=loaded,
    )
    return with_base(options, outcome)


def _load_and_run(
    options: Options,
    *,
    jobs: tuple[str, ...],
    paths: tuple[Path, ...],
    keep: bool,
    emit: bool,
    texts: bool,
    output: bool,
    sink_for: Callable[[str], TextSink] | None = None,
    loaded: Callable[[Project], object] | None = None,
) -> Outcome:
    # Named files: the team's objects are checked only where their problems are
    # reported (kgen.commands.scope).
    objects = not paths or names_team_objects(options.root, paths, cwd=Path.cwd())
    project, problems = load_project(
        options.root,
        extra_crds=options.crds,
        use_cache=options.cache,
        # Many new jobs are parsed by the run's workers, each where it renders: one
        # pool (kgen.pipeline.pending); named jobs and paths are looked up first.
        defer_parse=not jobs and not paths,
        team_objects=objects,
    )
    if project is None:
        return Outcome(None, None, problems)
    if loaded is not None:
        loaded(project)
    if output:
        problems = [
            *problems,
            *output_problems(project, extra_crds=options.crds),
            *argocd_problems(project, extra_crds=options.crds),
            *flux_problems(project, extra_crds=options.crds),
        ]
    for env in options.envs:
        if env not in project.spec.environments:
            known = listed(list(project.spec.environments))
            raise UsageError(f"unknown environment '{env}' (environments: {known})")
    names = [j.name for j in project.jobs]
    for job in jobs:
        if job not in names and not problems:
            raise UsageError(f"unknown job '{job}' (jobs: {listed(names)})")
    if not paths:
        result = run(
            project,
            envs=options.envs or None,
            jobs=jobs or None,
            keep=keep,
            emit=emit,
            texts=texts,
            progress=options.progress,
            sink=None
            if sink_for is None or any(p.severity == "error" for p in problems)
            else sink_for(project.spec.output),
        )
        if options.progress is not None:
            options.progress.finish()
        return Outcome(project, result, problems + result.problems)
    scope = scope_for(project, list(paths), cwd=Path.cwd())
    if scope.empty:
        return Outcome(project, None, [p for p in problems if scope.reports(p)])
    result = run(project, envs=options.envs or None, select=scope.selects, keep=keep)
    return Outcome(
        project, result, [p for p in problems + result.problems if scope.reports(p)]
    )


def doubt_failure(
    outcome: Outcome,
    problems: list[Problem] | None = None,
    *,
    warnings: bool = False,
) -> None:
    """Before a failure is reported: CacheDisagrees if it may rest on what the cache
    served (kgen.pipeline.fresh.doubt); `problems`: the outcome's, unless given."""
    if outcome.project is not None and outcome.project.cache.served:
        from kgen.pipeline.fresh import doubt

        doubt(
            outcome.project,
            outcome.problems if problems is None else problems,
            warnings=warnings,
        )


def changed_in_place_problems(outcome: Outcome) -> list[Problem]:
    if outcome.project is None or outcome.result is None or outcome.failed:
        return []
    ignored = outcome.project.spec.lint.ignore
    base = outcome.base.marks if outcome.base is not None else None
    # Imported here: only a job changed in place needs the CEL runtime.
    from kgen.check.cel_transition import transition_problems

    # Warnings kgen.yaml ignores are not worked out (locating each costs a one-spec
    # validate 3 ms); the committed index is still read, and a damaged one refused,
    # by the transition check.
    in_place = (
        []
        if IN_PLACE in ignored
        else changed_in_place(outcome.project, outcome.result, base)
    )
    return [
        p
        for p in [
            *in_place,
            *transition_problems(outcome.project, outcome.result, outcome.base),
        ]
        if p.code not in ignored
    ]


def with_base(options: Options, outcome: Outcome) -> Outcome:
    """The outcome with a render of the base commit, when one is asked for (or CI names
    the pull request's target branch); nothing to compare on errors."""
    if outcome.project is None or outcome.result is None or outcome.failed:
        return outcome
    if options.base is None and options.base_branch is None:
        return outcome
    from kgen.base.git import merge_base
    from kgen.base.snapshot import base_snapshot

    ref = options.base
    if ref is None:
        assert options.base_branch is not None
        try:
            ref = merge_base(options.root, options.base_branch)
        except UsageError as exc:
            # Asked by nobody: say why, and compare with the index as without CI.
            note = usage_text(str(exc))
            options.err.write(f"kgen: note: not comparing with the base: {note}\n")
            return outcome
    output = outcome.project.spec.output
    outcome.base = base_snapshot(options.root, ref, output=output)
    return outcome


def written_counts(written: int, removed: int, unchanged: int) -> str:
    """What a write did: `1 file written, 0 removed, 12 unchanged`."""
    return f"{count(written, 'file')} written, {removed} removed, {unchanged} unchanged"
