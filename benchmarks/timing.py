"""Whole-process timings: the median wall time of N runs after a warm-up, and the peak
memory the kernel reports for the child (wait4's ru_maxrss: the largest single process
of its tree, a forked worker included, not their sum).

Trees a run leaves are moved aside into a trash folder, never deleted, right before a
timed run: creating thousands of files just after deleting thousands was up to 30x
slower on the file systems CI runs on, which would time the disk catching up, not kgen.
"""

from __future__ import annotations

import itertools
import os
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple


class Figure(NamedTuple):
    """One command's timings: seconds and megabytes."""

    median_s: float
    min_s: float
    max_s: float
    peak_mb: float
    runs: int

    def as_json(self) -> dict[str, float]:
        return {
            "median_s": round(self.median_s, 4),
            "min_s": round(self.min_s, 4),
            "max_s": round(self.max_s, 4),
            "peak_mb": round(self.peak_mb, 1),
            "runs": self.runs,
        }


class Trash:
    """Where trees go between runs; emptied once, after every timing is done."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self._names = itertools.count()

    def move(self, *paths: Path) -> None:
        for path in paths:
            if path.exists():
                path.rename(self.folder / str(next(self._names)))


def run_once(
    command: list[str], *, cwd: Path, env: Mapping[str, str] | None = None
) -> tuple[float, float, int]:
    """Wall seconds, peak MB and exit code of one whole-process run."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=None if env is None else dict(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    # Popen's own bookkeeping: wait4 above reaped the child already.
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, proc.returncode


def measure(
    command: list[str],
    *,
    cwd: Path,
    runs: int,
    before: Callable[[], object] | None = None,
    env: Mapping[str, str] | None = None,
    expect: int = 0,
    warm_up: bool = True,
) -> Figure:
    """Median of `runs` counted runs, after one warm-up unless the caller has just run
    the command itself; `before` runs untimed before each."""
    walls: list[float] = []
    peaks: list[float] = []
    for attempt in range(runs + 1 if warm_up else runs):
        if before is not None:
            before()
        wall, peak, code = run_once(command, cwd=cwd, env=env)
        if code != expect:
            raise SystemExit(
                f"bench: `{' '.join(command)}` exited {code}, expected {expect}"
            )
        if attempt or not warm_up:
            walls.append(wall)
            peaks.append(peak)
    return Figure(
        median_s=statistics.median(walls),
        min_s=min(walls),
        max_s=max(walls),
        peak_mb=max(peaks),
        runs=runs,
    )


def measure_alternating(
    command: list[str],
    *,
    cwd: Path,
    runs: int,
    variants: Mapping[str, Mapping[str, str]],
    before: Callable[[], object] | None = None,
) -> dict[str, Figure]:
    """The same command under each environment in `variants`, run in turns (a, b, a,
    b, ...) so that a machine drifting over the minutes weighs on each alike."""
    walls: dict[str, list[float]] = {name: [] for name in variants}
    peaks: dict[str, list[float]] = {name: [] for name in variants}
    for attempt in range(runs + 1):
        for name, env in variants.items():
            if before is not None:
                before()
            wall, peak, code = run_once(command, cwd=cwd, env=env)
            if code != 0:
                raise SystemExit(f"bench: `{' '.join(command)}` ({name}) exited {code}")
            if attempt:
                walls[name].append(wall)
                peaks[name].append(peak)
    return {
        name: Figure(
            median_s=statistics.median(walls[name]),
            min_s=min(walls[name]),
            max_s=max(walls[name]),
            peak_mb=max(peaks[name]),
            runs=runs,
        )
        for name in variants
    }
