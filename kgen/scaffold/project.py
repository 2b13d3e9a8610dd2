"""What `kgen init DIR` writes, and what it would replace."""

from __future__ import annotations

import os
from pathlib import Path

from kgen.errors import KgenError, Problem
from kgen.output.safe_paths import Refused, Unread
from kgen.scaffold.templates import GITIGNORE_LINES, project_files


def scaffold(folder: Path) -> dict[Path, str]:
    """Every file of a new project in `folder` but the schemas (`schema_files`)."""
    return {folder / name: text for name, text in project_files().items()}


def schema_files(folder: Path) -> dict[Path, str]:
    """What `kgen schema` writes: the editor schemas a new project's
    `# yaml-language-server` comments name and the job envelopes, so that
    `kgen schema --check` passes in a new project as it does after `kgen schema`."""
    from kgen.reference.schemas import all_schemas, dump

    return {folder / "schemas" / name: dump(s) for name, s in all_schemas().items()}


def gitignore(current: bytes | None) -> str:
    """.gitignore with kgen's lines added after what it held (kept as it is, byte for
    byte: what is not UTF-8 is carried as surrogate escapes, which
    kgen.output.generated.encoded turns back into those bytes)."""
    text = (current or b"").decode("utf-8", errors="surrogateescape")
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


# A .gitignore is a few KB; one larger than this is not read whole to add three lines.
MAX_GITIGNORE = 16 * 1024 * 1024


def read_gitignore(folder: Path) -> bytes | None:
    """The folder's .gitignore, None if there is none (or it is no regular file:
    stale_files refuses that with a problem); KgenError if it is too large to merge."""
    from kgen.output.generated import read_current

    path = folder / ".gitignore"
    try:
        current = read_current(path, limit=MAX_GITIGNORE)
    except Refused:
        return None
    if isinstance(current, Unread):
        raise KgenError(
            Problem(
                f"{path.as_posix()} is {current.size:,} bytes, over"
                f" {MAX_GITIGNORE >> 20} MiB; kgen init does not read it to add its"
                " lines, and wrote nothing",
                "io",
                file=path.as_posix(),
                hint=f"add the line {GITIGNORE_LINES[-1]} to it yourself, or shorten it",
            )
        )
    return current
