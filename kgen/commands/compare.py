"""`kgen diff --base REF`: the renders now against the renders of a base commit, as a
unified diff or (`--format markdown`) a summary per environment for a review comment."""

from __future__ import annotations

from dataclasses import replace

from kgen.base.snapshot import Snapshot, current_snapshot
from kgen.commands.outcome import (
    EXIT_OK,
    EXIT_PROBLEMS,
    Options,
    changed_in_place_problems,
    load_and_run,
    report,
)
from kgen.errors import UsageError


def compare(options: Options, *, fmt: str, exit_code: bool = False) -> int:
    outcome = load_and_run(options, emit=True)
    if outcome.failed or outcome.project is None or outcome.result is None:
        report(options, outcome, to_stderr=True)
        return EXIT_PROBLEMS
    if outcome.base is None:
        raise UsageError(
            "there is no base to compare with: give --base REF (e.g. --base main)"
        )
    in_place = changed_in_place_problems(outcome)
    outcome.problems = [*(outcome.problems or []), *in_place]
    report(options, outcome, to_stderr=True)
    from kgen.report.summary import markdown, unified

    base = _only(outcome.base, options.envs)
    head = _only(current_snapshot(outcome.project, outcome.result), options.envs)
    ref = options.base or f"the merge base with {options.base_branch}"
    if fmt == "markdown":
        # As the text report says it: the environments, unless it is in all the job's.
        notes = sorted(
            {
                f"{p.message} (in {p.context})" if p.context else p.message
                for p in in_place
            }
        )
        options.out.write(markdown(base, head, ref=ref, notes=notes))
    else:
        options.out.write(unified(base, head, ref=ref))
    changed = base.files != head.files
    return EXIT_PROBLEMS if exit_code and changed else EXIT_OK


def _only(snapshot: Snapshot, envs: tuple[str, ...]) -> Snapshot:
    if not envs:
        return snapshot
    return replace(
        snapshot,
        files={k: v for k, v in snapshot.files.items() if k.partition("/")[0] in envs},
        gpus={k: v for k, v in snapshot.gpus.items() if k in envs},
    )
