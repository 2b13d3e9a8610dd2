"""Whole-process timings: the median wall time of N runs after a warm-up, and wait4's
ru_maxrss for the record (the largest single process of the child's tree; on Linux never
less than the bench's own RSS when it started the child, which exec keeps: the memory
goal uses memory.py's figure instead).

Trees a run leaves are moved aside into a trash folder, never deleted, right before a
timed run: creating thousands of files just after deleting thousands was up to 30x
slower on the file systems CI runs on, which would time the disk catching up, not kgen.
"""

from __future__ import annotations

import os
import shutil
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
    maxrss_mb: float
    runs: int

    def as_json(self) -> dict[str, float]:
        return {
            "median_s": round(self.median_s, 4),
            "min_s": round(self.min_s, 4),
            "max_s": round(self.max_s, 4),
            "maxrss_mb": round(self.maxrss_mb, 1),
            "runs": self.runs,
        }


class Trash:
    """Where trees go between runs: moved aside before a run, never deleted right
    before one. The trash is emptied right after the run that follows the move (see
    `alternate`), while what it holds is seconds old and still in the page cache: on
    an ext4 mounted with `discard`, every deleted file that reached the disk costs a
    synchronous discard (about 2 ms a file here: 13 minutes for 40 trees of a
    1,000-job run), and files created meanwhile were up to 30x slower."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def empty(self) -> None:
        for tree in list(self.folder.iterdir()):
            shutil.rmtree(tree)

    def move(self, *paths: Path) -> None:
        for path in paths:
            if path.exists():
                self.count += 1
                path.rename(self.folder / str(self.count))


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


class Variant(NamedTuple):
    """One command to time, where, with what environment, after what untimed step."""

    command: list[str]
    cwd: Path
    env: Mapping[str, str] | None = None
    before: Callable[[], object] | None = None
    expect: int = 0


def alternate(
    variants: Mapping[str, Variant],
    *,
    runs: int,
    warm_up: bool = True,
    after: Callable[[], object] | None = None,
) -> dict[str, Figure]:
    """Each variant `runs` times, in turns (a, b, a, b, ...), after one warm-up round
    unless the caller has just run them: on a machine whose speed drifts over the
    minutes (a shared CI runner), a figure and its floor see the same drift, so
    their ratio holds where the seconds do not. Medians and the largest peak.
    `after` runs untimed after each run (emptying the trash)."""
    walls: dict[str, list[float]] = {name: [] for name in variants}
    peaks: dict[str, list[float]] = {name: [] for name in variants}
    for attempt in range(runs + 1 if warm_up else runs):
        for name, variant in variants.items():
            if variant.before is not None:
                variant.before()
            wall, peak, code = run_once(
                variant.command, cwd=variant.cwd, env=variant.env
            )
            if after is not None:
                after()
            if code != variant.expect:
                raise SystemExit(
                    f"bench: `{' '.join(variant.command)}` ({name}) exited {code},"
                    f" expected {variant.expect}"
                )
            if attempt or not warm_up:
                walls[name].append(wall)
                peaks[name].append(peak)
    return {
        name: Figure(
            median_s=statistics.median(walls[name]),
            min_s=min(walls[name]),
            max_s=max(walls[name]),
            maxrss_mb=max(peaks[name]),
            runs=runs,
        )
        for name in variants
    }


def measure(
    variant: Variant,
    *,
    runs: int,
    warm_up: bool = True,
    after: Callable[[], object] | None = None,
) -> Figure:
    """One command alone: the median of `runs` runs."""
    return alternate({"": variant}, runs=runs, warm_up=warm_up, after=after)[""]
