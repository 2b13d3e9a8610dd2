"""`make hardening`: every hostile case, run as its own process, stays under a second
and 200 MB (median wall time of three runs; peak memory of the largest run, the child's
maxrss from wait4). Runs without the cache, so each run does all its work.

Prints the slowest and the largest cases, and exits 1 naming each case over a bound.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.hostile.corpus import CASES, materialise

MAX_SECONDS = 1.0
MAX_MB = 200.0
RUNS = 3


def measure(args: tuple[str, ...], cwd: Path) -> tuple[float, float, int]:
    """Median wall seconds, peak MB and the exit code of RUNS runs."""
    walls, peaks, codes = [], [], set()
    env = {**os.environ, "KGEN_NO_CACHE": "1", "NO_COLOR": "1"}
    for _ in range(RUNS):
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "kgen", *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - start)
        peaks.append(usage.ru_maxrss / 1024)
        codes.add(os.waitstatus_to_exitcode(status))
    return statistics.median(walls), max(peaks), codes.pop() if len(codes) == 1 else -1


def main() -> int:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, case in sorted(CASES.items()):
            root = materialise(case, Path(tmp) / name / "project")
            wall, peak, code = measure(case.args, root)
            rows.append((name, wall, peak, code, case.expected_exit))
    failures = [
        f"{name}: {wall:.2f} s, {peak:.0f} MB, exit {code} (expected {expected})"
        for name, wall, peak, code, expected in rows
        if wall > MAX_SECONDS or peak > MAX_MB or code != expected
    ]
    print(f"{len(rows)} hostile cases, bounds {MAX_SECONDS} s and {MAX_MB:.0f} MB")
    print("slowest:")
    for name, wall, peak, _, _ in sorted(rows, key=lambda r: -r[1])[:5]:
        print(f"  {name:40} {wall:5.2f} s {peak:6.1f} MB")
    print("largest:")
    for name, wall, peak, _, _ in sorted(rows, key=lambda r: -r[2])[:5]:
        print(f"  {name:40} {wall:5.2f} s {peak:6.1f} MB")
    for line in failures:
        print(f"OVER: {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
