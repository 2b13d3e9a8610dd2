"""The options the commands share (the Options record they make: kgen.cli_settings)."""

from __future__ import annotations

from pathlib import Path

import click

from kgen.complete import env_names
from kgen.report.formats import REPORTERS

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
