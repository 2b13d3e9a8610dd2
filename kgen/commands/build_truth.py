"""`kgen build` and `kgen diff` whose answer never rests on a cache entry that lies.

A run reads the cache as usual; before it reports anything but "up to date" (or, for
a build, nothing to write), kgen.pipeline.fresh checks what the cache served behind
that answer. When it disagrees (CacheDisagrees), nothing has been written or reported
yet: the command runs again with every lookup missing, and the entries that run makes
replace the ones that lied, so the next run is quick again.
"""

from __future__ import annotations

from kgen.commands.build import build as build_once
from kgen.commands.build import diff as diff_once
from kgen.commands.options import Options
from kgen.commands.up_to_date import Attempt
from kgen.pipeline.cache import CacheDisagrees, distrusted


def build(
    options: Options,
    *,
    check: bool = False,
    show_diff: bool = False,
    attempt: Attempt | None = None,
) -> int:
    """kgen.commands.build.build, its answer checked against the cache's."""
    try:
        return build_once(options, check=check, show_diff=show_diff, attempt=attempt)
    except CacheDisagrees:  # its spool and early scan were let go (build)
        with distrusted():
            return build_once(
                options, check=check, show_diff=show_diff, attempt=attempt
            )


def diff(options: Options, *, exit_code: bool = False) -> int:
    """kgen.commands.build.diff, its answer checked against the cache's."""
    try:
        return diff_once(options, exit_code=exit_code)
    except CacheDisagrees:
        with distrusted():
            return diff_once(options, exit_code=exit_code)
