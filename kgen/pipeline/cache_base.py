"""The user's cache folder, where every project's cache folder is (kgen.pipeline.
cache_place) and what is kgen's own rather than a project's (kgen.pipeline.code_store):
`KGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/kgen` or `~/.cache/kgen`; none with
`KGEN_NO_CACHE`. Imports nothing of kgen, so that kgen.pipeline.code can use it."""

from __future__ import annotations

import os
from pathlib import Path


def cache_base() -> Path | None:
    if os.environ.get("KGEN_NO_CACHE", "") not in ("", "0"):
        return None
    base = os.environ.get("KGEN_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kgen"
    )
    return Path(base)
