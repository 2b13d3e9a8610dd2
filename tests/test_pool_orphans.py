"""A build stopped by a signal while its render workers run leaves none of them behind.

The workers (kgen.pipeline.parallel) are forked; stopped by SIGTERM or SIGHUP, the
parent ended and they waited for ever, reparented to init, on a queue whose other end
they hold themselves.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import write_tree

JOB = """
framework: pytorch
image: docker.io/example/{name}:v1
roles:
  master: {{replicas: 1}}
  worker: {{replicas: 2}}
"""


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except (OSError, ValueError):
            continue
        if entry.name.isdigit() and int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_the_renders_leaves_no_worker(signum: int, tmp_path: Path):
    files = {f"jobs/j{i}.yaml": JOB.format(name=f"j{i}") for i in range(400)}
    files |= {
        "kgen.yaml": "environments:\n  dev: [v1]\n",
        "overlays/v1.yaml": "target: v1\n",
    }
    write_tree(tmp_path, files)
    env = dict(os.environ, KGEN_WORKERS="2", KGEN_NO_CACHE="1")
    process = subprocess.Popen(
        [sys.executable, "-m", "kgen", "build", "-C", str(tmp_path)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[int] = []
    deadline = time.monotonic() + 30
    while len(workers) < 2 and process.poll() is None and time.monotonic() < deadline:
        workers = _children(process.pid)
        time.sleep(0.005)
    assert len(workers) >= 2, "the build started no workers"
    process.send_signal(signum)
    process.wait(timeout=30)
    deadline = time.monotonic() + 5
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []
