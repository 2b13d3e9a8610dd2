"""Where a project's cache lives: in the user's cache folder, never in the project (a
pull request cannot plant it), one folder per project's real path; none with
KGEN_NO_CACHE or a cache folder inside the project. Apart from kgen.pipeline.cache so
that a replayed check (kgen.commands.up_to_date) finds its record without loading the
render cache and its job kinds.

The project's folder is not used either where it is a link: CI restores the cache as
it saved it, links and all, and one made a link into the project (or anywhere) had
kgen read its entries from there and write its files there. The user's cache folder
itself may be a link (to another disk): it is checked by where it leads."""

from __future__ import annotations

import os
from pathlib import Path

from kgen.pipeline.cache_base import cache_base, inside
from kgen.pipeline.code import digest


def cache_folder(root: Path) -> Path | None:
    base = cache_base()
    if base is None or inside(base, root):
        return None
    folder = base / digest(str(root.resolve()))[:24]
    return None if os.path.islink(folder) or inside(folder, root) else folder
