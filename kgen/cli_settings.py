"""The Options record a command gets from its options, and what a fatal error is
reported in: without the command-line library, so that `kgen validate PATHS`
(kgen.cli_quick) can make them as kgen.cli does."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgen.commands.options import Options
    from kgen.report.terminal import Progress


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
    envs, crds = _once(envs), _crd_files(crds)
    # --no-cache is the group's option; a run without click (kgen.cli_quick) has none.
    click = sys.modules.get("click")
    context = click.get_current_context(silent=True) if click else None
    no_cache = bool(context and context.find_root().params.get("no_cache"))
    from kgen.pipeline.code_store import keep

    keep(not no_cache and not _cache_in_project(root))
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


def _cache_in_project(root: Path) -> bool:
    """Whether the cache folder lies in the project (KGEN_CACHE_DIR=.cache run from
    it): then kgen runs without it, and says so (kgen.pipeline.cache_base)."""
    from kgen.pipeline.cache_base import cache_base, inside

    base = cache_base()
    if base is None or not inside(base, root):
        return False
    from kgen.errors import printable, shortened

    sys.stderr.write(
        f"kgen: note: not using the cache: {shortened(printable(str(base)), 200)} is"
        " inside the project, where a pull request could plant entries; set"
        " KGEN_CACHE_DIR to a folder outside it\n"
    )
    return True


def _once(names: tuple[str, ...]) -> tuple[str, ...]:
    """`names` without repeats, in their order: `--env dev --env dev` is dev once (twice,
    its kustomization listed itself among the environment's files)."""
    return tuple(dict.fromkeys(names))


def _crd_files(crds: tuple[str, ...]) -> tuple[str, ...]:
    """The --crd files once each (`c.yaml` and `./c.yaml` are one file); an empty name
    is a usage error, not a project problem at no file."""
    if "" in crds:
        from kgen.errors import UsageError

        raise UsageError("--crd '' names no file; give the CRD file's path")
    first = {os.path.normpath(name): name for name in reversed(crds)}
    return tuple(dict.fromkeys(first[os.path.normpath(name)] for name in crds))


def _progress() -> Progress | None:
    from kgen.report.terminal import Progress

    return Progress(sys.stderr) if Progress.wanted(sys.stderr) else None


def _pull_request_target() -> str | None:
    """The target branch of the pull request GitHub Actions runs for, if any."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return None
    return os.environ.get("GITHUB_BASE_REF") or None
