"""`kgen list` / `kgen plan`: jobs x environments with their pods, GPUs, CPU and memory."""

from __future__ import annotations

from kgen.commands.outcome import EXIT_OK, EXIT_PROBLEMS, Options, load_and_run, report
from kgen.report.plan import table


def plan(options: Options) -> int:
    """Jobs x environments with pods, GPUs, CPU and memory, and totals per environment."""
    outcome = load_and_run(options)
    # Lint warnings are validate's to report; here they only bury the answer.
    outcome.problems = [p for p in outcome.problems or [] if p.severity == "error"]
    report(options, outcome, to_stderr=True)
    if outcome.result is None:
        return EXIT_PROBLEMS
    options.out.write(table(outcome.result))
    return EXIT_PROBLEMS if outcome.failed else EXIT_OK
