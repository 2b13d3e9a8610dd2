"""`kgen validate [PATHS]`: the pull-request linter; writes nothing."""

from __future__ import annotations

import os
from pathlib import Path

from kgen.commands.outcome import (
    EXIT_OK,
    EXIT_PROBLEMS,
    Options,
    Outcome,
    changed_in_place_problems,
    doubt_failure,
    load_and_run,
    report,
    run_scope,
)
from kgen.commands.scope import (
    FOLDER,
    names_team_objects,
    scope_for,
    unreadable_paths,
)
from kgen.errors import Problem
from kgen.pipeline.cache import CacheDisagrees, distrusted


def validate(
    options: Options, *, strict: bool = False, paths: tuple[Path, ...] = ()
) -> int:
    """Load, validate and render everything in memory (or what `paths` touch); write
    nothing. Warnings alone exit 0, unless `strict`. A failure that may rest on what
    the cache served is not reported but found again without it (as `build` does,
    kgen.commands.build_truth): a pull request's check must not fail on a planted
    entry."""
    try:
        return _validate(options, strict=strict, paths=paths)
    except CacheDisagrees:
        with distrusted():
            return _validate(options, strict=strict, paths=paths)


def _validate(options: Options, *, strict: bool, paths: tuple[Path, ...]) -> int:
    outcome = load_and_run(options, paths=paths, output=True)
    outcome.problems = [
        *unreadable_paths(options.root, list(paths), cwd=Path.cwd()),
        *(outcome.problems or []),
        *changed_in_place_problems(outcome),
        *_team_clashes(options, outcome, paths),
    ]
    failing = [p for p in outcome.problems if strict or p.severity == "error"]
    if failing:
        doubt_failure(outcome, failing, warnings=strict)
    report(options, outcome)
    if outcome.result is not None and not failing:
        options.err.write(f"kgen: {run_scope(outcome.result)}: valid\n")
    elif outcome.result is None and paths and not failing:
        options.err.write(
            "kgen: none of the given paths is a job spec, overlay or kgen.yaml\n"
        )
    return EXIT_PROBLEMS if failing else EXIT_OK


def _team_clashes(
    options: Options, outcome: Outcome, paths: tuple[Path, ...]
) -> list[Problem]:
    """The team's objects that are also objects the checked jobs render, which `build`
    refuses (kgen.output.tree); with paths, those where the path names the object or
    the job. A run over paths that name no team object has not loaded them: only
    their kinds and names are read, which is all a clash needs (docs/guarantees.md)."""
    project, result = outcome.project, outcome.result
    if project is None or result is None or not result.renders:
        return []
    if not paths or names_team_objects(options.root, paths, cwd=Path.cwd()):
        objects = project.resources
    elif os.path.lexists(project.root / FOLDER):
        from kgen.resources.clash import named_objects

        objects = named_objects(project.root, list(project.spec.environments))
    else:
        return []
    if not objects:
        return []
    # Imported here: only a project with team objects needs it.
    from kgen.resources.clash import job_clashes

    if not paths:
        return job_clashes(result, objects).problems
    scope = scope_for(project, list(paths), cwd=Path.cwd())
    named = scope.files if not scope.everything else None
    return job_clashes(
        result,
        objects,
        None if named is None else lambda team, job: team in named or job in named,
    ).problems
