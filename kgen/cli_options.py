"""The options the commands share, and the Options record a command gets from them."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kgen.complete import env_names
from kgen.report.formats import REPORTERS

if TYPE_CHECKING:
    from kgen.commands.options import Options
    from kgen.report.terminal import Progress

project_option = click.option(
    "--project",
    "-C",
    "root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Folder that holds kgen.yaml.",
)
format_option = click.option(
    "--format",
    "report_format",
    type=click.Choice([*sorted(REPORTERS), "auto"]),
    default="auto",
    show_default=True,
    help="How problems are printed; auto is github under GitHub Actions, else text.",
)
envs_option = click.option(
    "--env",
    "-e",
    "envs",
    multiple=True,
    help="Only this environment (repeatable).",
    shell_complete=env_names,
)
crds_option = click.option(
    "--crd",
    "crds",
    multiple=True,
    help="A CRD file to check rendered objects against too (repeatable).",
)


base_option = click.option(
    "--base",
    metavar="REF",
    help="Compare with the project at this git commit (default in a GitHub pull"
    " request: the merge base with its target branch).",
)


# What the running command chose, for cli.main to report a fatal error with.
CHOSEN: dict[str, str] = {}


def fatal_format() -> str:
    """The reporter for a fatal error: the command's --format (auto resolved)."""
    from kgen.report.formats import pick_format

    return pick_format(CHOSEN.get("format", "text"))


def options_for(
    root: Path,
    report_format: str,
    *,
    envs: tuple[str, ...] = (),
    crds: tuple[str, ...] = (),
    base: str | None = None,
    ci_base: bool = False,
    progress: bool = False,
) -> Options:
    from kgen.commands.options import Options

    # A fatal error raised later is reported in this format too (attack14 F17).
    CHOSEN["format"] = report_format
    context = click.get_current_context(silent=True)
    no_cache = bool(context and context.find_root().params.get("no_cache"))
    return Options(
        root=root,
        out=sys.stdout,
        err=sys.stderr,
        envs=envs,
        report_format=report_format,
        crds=crds,
        cache=not no_cache,
        base=base,
        base_branch=_pull_request_target() if ci_base and base is None else None,
        progress=_progress() if progress else None,
    )


def _progress() -> Progress | None:
    from kgen.report.terminal import Progress

    return Progress(sys.stderr) if Progress.wanted(sys.stderr) else None


def _pull_request_target() -> str | None:
    """The target branch of the pull request GitHub Actions runs for, if any."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return None
    return os.environ.get("GITHUB_BASE_REF") or None
