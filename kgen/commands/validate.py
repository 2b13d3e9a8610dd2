"""`kgen validate [PATHS]`: the pull-request linter; writes nothing."""

from __future__ import annotations

from pathlib import Path

from kgen.commands.outcome import (
    EXIT_OK,
    EXIT_PROBLEMS,
    Options,
    changed_in_place_problems,
    doubt_failure,
    load_and_run,
    report,
    run_scope,
)
from kgen.commands.scope import unreadable_paths
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
