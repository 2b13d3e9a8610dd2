"""What `kgen init DIR` writes, and what it would replace."""

from __future__ import annotations

import os
from pathlib import Path

from kgen.output.safe_paths import Refused
from kgen.scaffold.templates import GITIGNORE_LINES, project_files


def scaffold(folder: Path) -> dict[Path, str]:
    """Every file of a new project in `folder` but the schemas (`schema_files`)."""
    return {folder / name: text for name, text in project_files().items()}


def schema_files(folder: Path) -> dict[Path, str]:
    """The editor schemas a new project's `# yaml-language-server` comments name; the
    job envelopes (`kgen schema`) are for tools that check the output, not for a new
    project."""
    from kgen.reference.schemas import dump, editor_schemas

    return {folder / "schemas" / name: dump(s) for name, s in editor_schemas().items()}


def gitignore(current: bytes | None) -> str:
    """.gitignore with kgen's lines added after what it held (kept as it is)."""
    text = (current or b"").decode("utf-8", errors="replace")
    missing = [line for line in GITIGNORE_LINES if line not in text.splitlines()]
    if not missing:
        return text
    joined = "\n".join(missing) + "\n"
    if text and not text.endswith("\n"):
        text += "\n"
    return text + joined


def existing(files: dict[Path, str]) -> list[Path]:
    """The files (or links, or anything else) already at those paths."""
    return [path for path in files if os.path.lexists(path)]


def read_gitignore(folder: Path) -> bytes | None:
    from kgen.output.generated import read_current

    try:
        return read_current(folder / ".gitignore")
    except Refused:
        return None  # not a regular file: write_or_check refuses it with a problem
