"""Where a project's cache lives: in the user's cache folder, never in the project (a
pull request cannot plant it), one folder per project's real path; none with
KGEN_NO_CACHE. Apart from kgen.pipeline.cache so that a replayed check (kgen.commands.
up_to_date) finds its record without loading the render cache and its job kinds."""

from __future__ import annotations

import os
from pathlib import Path

from kgen.pipeline.code import digest


def cache_folder(root: Path) -> Path | None:
    base = cache_base()
    return None if base is None else base / digest(str(root.resolve()))[:24]


def cache_base() -> Path | None:
    """The folder of every project's cache folder (and of what is kgen's own, not a
    project's: kgen.pipeline.code_store), or None with the cache off."""
    if os.environ.get("KGEN_NO_CACHE", "") not in ("", "0"):
        return None
    base = os.environ.get("KGEN_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kgen"
    )
    return Path(base)
