"""When a file's or folder's lstat may be trusted to say it has not changed since:
git's "racy" rule, for kgen's records (kgen.output.stat_record, kgen.load.job_record,
kgen.output.early_scan).

A file system keeps times to a step, so a change in the same step as the moment an
lstat was taken can leave the lstat as it was. A record trusts an lstat only if the
times it keeps were safely before that moment: any later change then gives them
others.
"""

from __future__ import annotations

from kgen.output.scan import Stat, ctime_of, mtime_of

# How long before the moment a file's lstat is taken its mtime must be, for the record
# to trust it. A file system keeps times to a step: Linux's clock tick (1-10 ms) where
# it keeps nanoseconds, 10 ms (exFAT), one second (ext3, HFS+), two (FAT). A time that
# is a whole number of 10 ms may be of a coarse one, and waits for the longest step.
_FINE_MARGIN_NS = 50_000_000
_COARSE_MARGIN_NS = 3_000_000_000
_COARSE_STEP_NS = 10_000_000


def settled(status: Stat, since_ns: int) -> bool:
    """Whether the file's mtime is safely before `since_ns`, when its lstat was taken:
    any later change gives it another mtime."""
    return _before(mtime_of(status), since_ns)


def settled_both(status: Stat, since_ns: int) -> bool:
    """settled, and the ctime too: a `touch -d` gives a file or folder back its mtime,
    never its ctime, so nothing done in the clock tick of the lstat, touched back or
    not, can leave both as they were."""
    return _before(mtime_of(status), since_ns) and _before(ctime_of(status), since_ns)


def _before(time_ns: int, since_ns: int) -> bool:
    coarse = time_ns % _COARSE_STEP_NS == 0
    return time_ns < since_ns - (_COARSE_MARGIN_NS if coarse else _FINE_MARGIN_NS)
