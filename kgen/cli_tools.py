"""The commands that write files beside the output: schemas, Argo CD, Flux, import and
init (kept apart from kgen.cli so each module stays small)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from kgen.cli_options import project_option
from kgen.cli_settings import options_for


@click.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("schemas"),
    show_default=True,
    help="Folder to write into.",
)
@click.option(
    "--check", is_flag=True, help="Exit 1 if the folder is not current; write nothing."
)
def schema(out: Path, check: bool) -> int:
    """Write JSON Schemas for job specs, overlays and kgen.yaml (draft-07, for editors) and the rendered jobs (2020-12, self-contained)."""
    from kgen.commands.generated import schema as command

    return _writing(
        lambda: command(options_for(Path("."), "text"), out=out, check=check),
        check=check,
    )


@click.command()
@project_option
@click.option(
    "--check", is_flag=True, help="Exit 1 if the files are not current; write nothing."
)
@click.option(
    "--if-configured",
    is_flag=True,
    help="Without an argocd: section in kgen.yaml, do nothing and exit 0 (for CI"
    " that runs every check on every project).",
)
def argocd(root: Path, check: bool, if_configured: bool) -> int:
    """Write Argo CD Applications (or an ApplicationSet), the health checks for every
    job kind, and ignoreDifferences, from kgen.yaml argocd:."""
    from kgen.commands.generated import argocd as command

    return _writing(
        lambda: command(
            options_for(root, "text"), check=check, if_configured=if_configured
        ),
        check=check,
    )


@click.command()
@project_option
@click.option(
    "--check", is_flag=True, help="Exit 1 if the files are not current; write nothing."
)
@click.option(
    "--if-configured",
    is_flag=True,
    help="Without a flux: section in kgen.yaml, do nothing and exit 0 (for CI"
    " that runs every check on every project).",
)
def flux(root: Path, check: bool, if_configured: bool) -> int:
    """Write a Flux Kustomization per environment (prune, wait, healthCheckExprs for
    every job kind; Flux 2.5 or later), from kgen.yaml flux:."""
    from kgen.commands.generated import flux as command

    return _writing(
        lambda: command(
            options_for(root, "text"), check=check, if_configured=if_configured
        ),
        check=check,
    )


@click.command("import")
@click.argument(
    "paths",
    nargs=-1,
    required=True,
    # Not exists=True: kgen import says the same of a file outside the project whether
    # or not it exists (kgen/importer/read.py), and reports a missing one inside it.
    type=click.Path(path_type=Path),
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("imported"),
    show_default=True,
    help="New project folder to write.",
)
def import_command(paths: tuple[Path, ...], out: Path) -> int:
    """Turn job manifests of every kind kgen renders (any API version) and their PVCs
    into job specs, with an overlay per input where inputs share a job name."""
    from kgen.commands.import_manifests import import_manifests as command

    return _writing(lambda: command(options_for(Path("."), "text"), paths, out=out))


@click.command()
@click.argument(
    "folder",
    required=False,
    default=Path("."),
    type=click.Path(file_okay=False, path_type=Path),
)
@click.option("--force", is_flag=True, help="Replace files that exist; list them.")
def init(folder: Path, force: bool) -> int:
    """A new project in FOLDER (default: here): kgen.yaml with a dev CPU and a prod GPU
    environment, an example job, overlays, .gitignore lines, CI, pre-commit and editor
    schemas. Builds and validates clean straight away; never overwrites without --force."""
    from kgen.commands.init import init as command

    return _writing(
        lambda: command(options_for(Path("."), "text"), folder, force=force)
    )


def _writing(command: Callable[[], int], *, check: bool = False) -> int:
    """`command`, stopped by SIGTERM or SIGHUP with nothing half-written left behind
    (kgen.stopping), unless it only checks."""
    if check:
        return command()
    from kgen.stopping import stoppable

    return stoppable(command)


TOOLS = (schema, argocd, flux, import_command, init)
