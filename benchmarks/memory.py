"""The memory of a command's whole process tree: forked workers share the parent's
pages until they write them, so the sum of their peak RSS overstates what the machine
gives them and the largest one understates it. Their PSS (each shared page counted
once, split between its sharers) summed over the tree, sampled while the command
runs, is what it costs. Linux only (/proc); elsewhere the figure is None.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from timing import Variant

PROC = Path("/proc")
INTERVAL_S = 0.02


def descendants(root: int) -> list[int]:
    """root and every process under it, from each process's parent in /proc."""
    children: dict[int, list[int]] = {}
    for stat in PROC.glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # gone since the listing
            continue
        # The command name, in parentheses, may hold spaces; the parent follows it.
        fields = text[text.rindex(")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue += children.get(pid, [])
    return found


def pss_kb(pid: int) -> int:
    try:
        for line in (PROC / str(pid) / "smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def tree_peak_mb(variant: Variant, *, after: Callable[[], object]) -> float | None:
    """One untimed run of the variant; the largest PSS sum of its tree, in MB."""
    if not (PROC / "self" / "smaps_rollup").exists():
        return None
    if variant.before is not None:
        variant.before()
    proc = subprocess.Popen(
        variant.command,
        cwd=variant.cwd,
        env=None if variant.env is None else dict(variant.env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    peak = 0
    while proc.poll() is None:
        peak = max(peak, sum(pss_kb(pid) for pid in descendants(proc.pid)))
        time.sleep(INTERVAL_S)
    after()
    if proc.returncode != variant.expect:
        raise SystemExit(
            f"bench: `{' '.join(variant.command)}` exited {proc.returncode}"
        )
    return peak / 1024
