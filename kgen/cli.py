"""The `kgen` command line: parse options, call a command, turn its outcome into an exit code.

Exit codes: 0 ok; 1 invalid input or drift; 2 usage; 3 internal error.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import click

from kgen import __version__
from kgen.cli_guard import EXIT_ABORTED, guarded
from kgen.cli_options import (
    base_option,
    crds_option,
    envs_option,
    format_option,
    project_option,
)
from kgen.cli_settings import CHOSEN, options_for
from kgen.cli_tools import TOOLS
from kgen.complete import env_names, job_names
from kgen.errors import capped, masked
from kgen.report.terminal import set_color

# Each command imports its module under kgen.commands when it runs: `kgen --version`
# and `--help` then load none of pydantic, jsonschema or the renderers (start-up is a
# benchmark target).


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="kgen")
@click.option(
    "--no-cache",
    is_flag=True,
    help="Neither read nor write the cache of earlier runs (also KGEN_NO_CACHE=1).",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour in messages; auto: on a terminal, unless NO_COLOR is set or TERM=dumb.",
)
def cli(no_cache: bool, color: str) -> None:
    """Render Kubeflow training jobs from short specs and overlays into GitOps manifests."""
    set_color(color)


@cli.command()
@project_option
@envs_option
@format_option
@crds_option
@click.option(
    "--check",
    is_flag=True,
    help="Compare with the committed output instead of writing; exit 1 on drift.",
)
@click.option(
    "--diff", "show_diff", is_flag=True, help="With --check, print a unified diff."
)
@base_option
def build(
    root: Path,
    envs: tuple[str, ...],
    report_format: str,
    crds: tuple[str, ...],
    check: bool,
    show_diff: bool,
    base: str | None,
) -> int:
    """Render every job for every environment into the output folder."""
    from kgen.cli_build import run_build

    return run_build(
        root,
        envs=envs,
        report_format=report_format,
        crds=crds,
        check=check,
        show_diff=show_diff,
        base=base,
    )


@cli.command()
@project_option
@envs_option
@format_option
@crds_option
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
@base_option
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def validate(
    root: Path,
    envs: tuple[str, ...],
    report_format: str,
    crds: tuple[str, ...],
    strict: bool,
    base: str | None,
    paths: tuple[Path, ...],
) -> int:
    """Check jobs, overlays and what they render, in every environment; write nothing.

    With PATHS (what a pull request or pre-commit touched), check the jobs named, the
    environments of the overlays named, or everything if kgen.yaml is named.
    """
    options = options_for(
        root, report_format, envs=envs, crds=crds, base=base, ci_base=True
    )
    from kgen.commands.validate import validate as command

    return command(options, strict=strict, paths=paths)


@cli.command()
@click.argument("job", required=False, shell_complete=job_names)
@click.option(
    "--env",
    "-e",
    "env",
    required=True,
    help="The environment to render for.",
    shell_complete=env_names,
)
@project_option
@format_option
def render(job: str | None, env: str, root: Path, report_format: str) -> int:
    """Print JOB's manifests (or every job's) for one environment to stdout, as one
    multi-document YAML stream: for `kubectl apply -f -` or an Argo CD plugin."""
    from kgen.commands.render import render as command

    return command(options_for(root, report_format, envs=(env,)), job)


@cli.command()
@click.argument("job", shell_complete=job_names)
@click.argument("field", required=False)
@click.option(
    "--env",
    "-e",
    "env",
    help="The environment to explain (needed when JOB renders in more than one).",
    shell_complete=env_names,
)
@project_option
def explain(job: str, field: str | None, env: str | None, root: Path) -> int:
    """Where each value of JOB comes from (file:line, and what it overrode), and the
    environment the operator gives each replica (ranks, addresses, TF_CONFIG).

    FIELD narrows the values to one key, e.g. resources or roles.worker.replicas.
    """
    from kgen.commands.explain import explain as command

    envs = () if env is None else (env,)
    return command(options_for(root, "text", envs=envs), job, field=field)


@cli.command()
@project_option
@envs_option
@click.option(
    "--exit-code", is_flag=True, help="Exit 1 when a build would change something."
)
@base_option
@click.option(
    "--format",
    "diff_format",
    type=click.Choice(["unified", "markdown"]),
    default="unified",
    show_default=True,
    help="markdown: objects added, removed and changed per environment, and GPUs"
    " before and after, against the base (for a pull-request comment).",
)
def diff(
    root: Path,
    envs: tuple[str, ...],
    exit_code: bool,
    base: str | None,
    diff_format: str,
) -> int:
    """Show what `kgen build` would change, as a unified diff (for review); with
    --base REF, what the renders change against that commit."""
    markdown = diff_format == "markdown"
    options = options_for(root, "text", envs=envs, base=base, ci_base=markdown)
    if options.base is None and options.base_branch is None and not markdown:
        from kgen.commands.build_truth import diff as command

        return command(options, exit_code=exit_code)
    from kgen.commands.compare import compare

    return compare(options, fmt=diff_format, exit_code=exit_code)


@cli.command("list")
@project_option
@envs_option
def list_jobs(root: Path, envs: tuple[str, ...]) -> int:
    """Jobs x environments: roles, pods, GPUs, CPU and memory, with totals per
    environment (elastic jobs at their maximum size). Also `kgen plan`."""
    from kgen.commands.plan import plan as command

    return command(options_for(root, "text", envs=envs))


# The same command under its other name, whose help names the first one.
plan_jobs = copy.copy(list_jobs)
plan_jobs.help = (list_jobs.help or "").replace("`kgen plan`", "`kgen list`")
cli.add_command(plan_jobs, "plan")
for _tool in TOOLS:
    cli.add_command(_tool)


def main(argv: list[str] | None = None) -> int:
    """Entry point: click's exceptions become exit codes here, kgen's in kgen.cli_guard."""
    CHOSEN.clear()
    set_color("auto")
    return guarded(lambda: _click_main(argv))


def _capped_click(exc: click.ClickException) -> click.ClickException:
    """`exc` with the command-line text it quotes cut short (kgen.errors.capped):
    click repeats an unknown option or a bad value whole."""
    message = capped(masked(exc.format_message()))
    if isinstance(exc, click.UsageError):
        return click.UsageError(message, ctx=exc.ctx)
    return click.ClickException(message)


def _click_main(argv: list[str] | None) -> object:
    try:
        return cli.main(args=argv, prog_name="kgen", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        _capped_click(exc).show()
        return exc.exit_code
    except click.exceptions.Abort:
        sys.stderr.write("kgen: aborted\n")
        return EXIT_ABORTED
