"""`kgen validate [PATHS]`: the pull-request linter; writes nothing."""

from __future__ import annotations

from pathlib import Path

from kgen.commands.outcome import (
    EXIT_OK,
    EXIT_PROBLEMS,
    Options,
    changed_in_place_problems,
    load_and_run,
    report,
    run_scope,
)
from kgen.commands.scope import unreadable_paths


def validate(
    options: Options, *, strict: bool = False, paths: tuple[Path, ...] = ()
) -> int:
    """Load, validate and render everything in memory (or what `paths` touch); write
    nothing. Warnings alone exit 0, unless `strict`."""
    outcome = load_and_run(options, paths=paths, output=True)
    outcome.problems = [
        *unreadable_paths(options.root, list(paths), cwd=Path.cwd()),
        *(outcome.problems or []),
        *changed_in_place_problems(outcome),
    ]
    report(options, outcome)
    failing = [p for p in outcome.problems or [] if strict or p.severity == "error"]
    if outcome.result is not None and not failing:
        options.err.write(f"kgen: {run_scope(outcome.result)}: valid\n")
    elif outcome.result is None and paths and not failing:
        options.err.write(
            "kgen: none of the given paths is a job spec, overlay or kgen.yaml\n"
        )
    return EXIT_PROBLEMS if failing else EXIT_OK
