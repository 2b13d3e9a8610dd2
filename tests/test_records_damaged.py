"""Records in the user's cache folder that are damaged in size: each costs a run its
time at most, never memory in proportion to the damage."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

from kgen.load.job_record import NAME, JobFiles


def test_a_huge_damaged_job_record_is_not_held_in_memory(tmp_path: Path) -> None:
    """A record of 64 MiB of zeros (a disk's damage, a truncate) is refused at its
    first byte: before, the whole file was read into memory to be unpickled (a GiB's
    record took a `kgen validate` to 1 GB)."""
    where = tmp_path / NAME
    with open(where, "wb") as handle:
        handle.truncate(64 << 20)
    assert os.path.getsize(where) == 64 << 20
    tracemalloc.start()
    try:
        record = JobFiles(tmp_path)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert record.old == {}
    assert peak < 1 << 20
