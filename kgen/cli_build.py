"""What `kgen build` does once its options are parsed, for kgen.cli (through click)
and kgen.cli_quick (a plain `kgen build [--check]`, without it) alike."""

from __future__ import annotations

from pathlib import Path

from kgen.cli_settings import options_for


def run_build(
    root: Path,
    *,
    envs: tuple[str, ...] = (),
    report_format: str = "auto",
    crds: tuple[str, ...] = (),
    check: bool = False,
    show_diff: bool = False,
    base: str | None = None,
) -> int:
    options = options_for(
        root,
        report_format,
        envs=envs,
        crds=crds,
        base=base,
        # build --check compares files, not specs: no base to render unless asked.
        ci_base=not check,
        progress=not check,
    )
    from kgen.commands.up_to_date import attempt_for

    # A run on inputs and a tree as the last one left them finds what it did, before
    # the project's models and the renderers load.
    attempt = attempt_for(options, check=check, show_diff=show_diff)
    if attempt is not None and (replayed := attempt.replay()) is not None:
        return replayed
    from kgen.commands.build_truth import build as command

    if check:
        return command(options, check=check, show_diff=show_diff, attempt=attempt)
    from kgen.stopping import stoppable

    # A build that writes stops on SIGTERM or SIGHUP with nothing staged left behind
    # (a replay above writes nothing, and goes without it).
    return stoppable(lambda: command(options, show_diff=show_diff, attempt=attempt))
