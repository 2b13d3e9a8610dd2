"""Shell completion of environment and job names (click's shell_complete), read from
kgen.yaml and the jobs folder with the same safe readers as every run.

Enable it with `eval "$(_KGEN_COMPLETE=bash_source kgen)"` (zsh_source, fish_source).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

_SUFFIXES = (".yaml", ".yml")


def _project(ctx: click.Context) -> tuple[Path, dict[str, Any]]:
    from kgen.load.yaml import load_file

    root = Path(ctx.params.get("root") or ".")
    doc, _ = load_file(root / "kgen.yaml", "kgen.yaml", root=root)
    data = doc.data if doc is not None and isinstance(doc.data, dict) else {}
    return root, data


def _offered(names: list[str], incomplete: str) -> list[str]:
    # Names kgen could not print as they are are not offered.
    return sorted(n for n in names if n.isprintable() and n.startswith(incomplete))


def env_names(
    ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[str]:
    try:
        _, data = _project(ctx)
        envs = data.get("environments")
        return (
            _offered([e for e in envs if isinstance(e, str)], incomplete)
            if isinstance(envs, dict)
            else []
        )
    except Exception:  # completion must never print a traceback into a prompt
        return []


def job_names(
    ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[str]:
    try:
        from kgen.load.files import list_folder

        root, data = _project(ctx)
        folder = data.get("jobs", "jobs")
        if not isinstance(folder, str):
            return []
        entries, _ = list_folder(root / folder, folder, _SUFFIXES)
        return _offered(
            [Path(e.name).stem for e in entries if e.is_file(follow_symlinks=False)],
            incomplete,
        )
    except Exception:  # completion must never print a traceback into a prompt
        return []
