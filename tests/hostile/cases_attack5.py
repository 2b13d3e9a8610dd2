"""Hostile inputs against the records kgen keeps of what it read (kgen.load.job_record,
kgen.output.stat_record): files dated where 64 bits of nanoseconds since 1970 do not
reach (after 2262: `touch -d 2300-01-01`, which ext4 and tmpfs keep; before 1677). The
packed lstat raised on them, and every command ended in an internal error."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tests.hostile.case import Case

# Nanoseconds since 1970 of 2300-01-01 and 1600-01-01 (a file system may hold the
# second at its own bound, 1901 on ext4).
_FUTURE_NS = 10_413_792_000 * 10**9
_PAST_NS = -11_676_096_000 * 10**9


def _dated(when_ns: int, *paths: str) -> Callable[[Path], None]:
    def prepare(root: Path) -> None:
        for path in paths:
            os.utime(root / path, ns=(when_ns, when_ns))

    return prepare


CASES: dict[str, Case] = {
    "attack5-job-file-dated-2300": Case(
        {},
        expected_exit=0,
        prepare=_dated(_FUTURE_NS, "jobs/train.yaml"),
        about="a job file's lstat past what the record packs: read, never recorded",
    ),
    "attack5-job-file-dated-2300-built": Case(
        {},
        args=("build",),
        expected_exit=0,
        prepare=_dated(_FUTURE_NS, "jobs/train.yaml", "jobs"),
        about="the job file and its folder from 2300, then a build that records",
    ),
    "attack5-job-file-dated-1600": Case(
        {},
        expected_exit=0,
        prepare=_dated(_PAST_NS, "jobs/train.yaml"),
        about="a job file from before 1677 (or the file system's own bound)",
    ),
}
