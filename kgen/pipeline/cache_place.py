"""Where a project's cache lives: in the user's cache folder, never in the project (a
pull request cannot plant it), one folder per project's real path; none with
KGEN_NO_CACHE or a cache folder inside the project. Apart from kgen.pipeline.cache so
that a replayed check (kgen.commands.up_to_date) finds its record without loading the
render cache and its job kinds."""

from __future__ import annotations

from pathlib import Path

from kgen.pipeline.cache_base import cache_base, inside
from kgen.pipeline.code import digest


def cache_folder(root: Path) -> Path | None:
    base = cache_base()
    if base is None or inside(base, root):
        return None
    return base / digest(str(root.resolve()))[:24]
