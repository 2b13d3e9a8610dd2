"""The user's cache folder, where every project's cache folder is (kgen.pipeline.
cache_place) and what is kgen's own rather than a project's (kgen.pipeline.code_store):
`KGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/kgen` or `~/.cache/kgen`; none with
`KGEN_NO_CACHE`. Imports nothing of kgen, so that kgen.pipeline.code can use it.

The cache is never in a project, where a pull request could plant entries that a run
would take as its own renders: a cache folder that resolves inside the project is not
used (`inside`), and a relative XDG_CACHE_HOME is ignored, as the XDG Base Directory
specification says (https://specifications.freedesktop.org/basedir-spec/latest/). A
relative KGEN_CACHE_DIR is taken from the current folder, once, as the run starts."""

from __future__ import annotations

import os
from pathlib import Path


def cache_base() -> Path | None:
    if os.environ.get("KGEN_NO_CACHE", "") not in ("", "0"):
        return None
    chosen = os.environ.get("KGEN_CACHE_DIR")
    if chosen:
        return Path(os.path.abspath(chosen))
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    home = xdg if os.path.isabs(xdg) else os.path.expanduser("~/.cache")
    return Path(home, "kgen")


def inside(base: Path, root: Path) -> bool:
    """Whether cache folder `base` is, after links, project `root` or below it."""
    real, top = os.path.realpath(base), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)
