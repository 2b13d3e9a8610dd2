"""kgen under a low open-file limit (`ulimit -n`): a result, or exit 1 naming the limit.

With `ulimit -n 8` to `14`, a build of enough jobs to start render workers ended as an
internal error (exit 3): the pool's pipes could not be opened; at 14, one worker started
and the next was refused, and the process's end waited for ever on the first. Now the
pool starts with the workers the limit leaves room for, or none (the same renders,
in-process), and a descriptor kgen cannot do without ends the run with exit 1 and a
message naming the limit, the output tree as it was.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import files_below, write_tree

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/fd").exists(), reason="Linux descriptors"
)

JOB = """
framework: pytorch
image: docker.io/example/{name}:v{version}
roles:
  master: {{replicas: 1}}
  worker: {{replicas: 2}}
"""
# 120 jobs in two environments: 240 renders, enough for workers (MIN_PARALLEL).
JOBS = 120
# Below about 6 the interpreter itself cannot start (it imports `site`): no kgen there.
LIMITS = [6, 7, 8, 10, 12, 14, 16, 20]
TIMEOUT = 90


def _project(root: Path, version: int) -> Path:
    files = {
        f"jobs/j{i:03d}.yaml": JOB.format(name=f"j{i}", version=version)
        for i in range(JOBS)
    }
    files |= {
        "kgen.yaml": "environments:\n  dev: [v1]\n  prod: [v1]\n",
        "overlays/v1.yaml": "target: v1\n",
    }
    return write_tree(root, files)


def _kgen(
    root: Path, *args: str, limit: int | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    def lower() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    environ = {**os.environ, "KGEN_WORKERS": "2", "KGEN_NO_CACHE": "1", **env}
    return subprocess.run(
        [sys.executable, "-m", "kgen", *args, "-C", str(root)],
        env=environ,
        capture_output=True,
        text=True,
        preexec_fn=lower,
        timeout=TIMEOUT,  # a hang fails the test
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    """A project built at version 1, and what a build at version 2 writes."""
    old = _project(tmp_path_factory.mktemp("old"), 1)
    assert _kgen(old, "build").returncode == 0
    new = _project(tmp_path_factory.mktemp("new"), 2)
    assert _kgen(new, "build").returncode == 0
    return old, files_below(new / "manifests")


def _ended_well(result: subprocess.CompletedProcess[str], limit: int) -> None:
    said = result.stdout + result.stderr
    assert result.returncode in (0, 1), said
    assert "Traceback" not in said
    assert "internal error" not in said
    if result.returncode == 1:
        assert f"ulimit -n is {limit}" in said, said


def _leftovers(root: Path) -> list[str]:
    return [name for name in os.listdir(root) if name.startswith(".manifests.kgen-new")]


@pytest.mark.parametrize("limit", LIMITS)
def test_a_build_under_a_low_limit_writes_all_or_nothing(
    limit: int, built: tuple[Path, dict[str, bytes]], tmp_path: Path
):
    old, expected = built
    root = tmp_path / "p"
    shutil.copytree(old, root)
    _project(root, 2)  # every job changed: the whole tree is written again
    before = files_below(root / "manifests")
    result = _kgen(root, "build", limit=limit)
    _ended_well(result, limit)
    after = files_below(root / "manifests")
    assert after == (expected if result.returncode == 0 else before)
    assert _leftovers(root) == []


@pytest.mark.parametrize("limit", [6, 8, 12, 14, 16])
@pytest.mark.parametrize("command", [["build", "--check"], ["validate"]])
def test_a_check_under_a_low_limit_ends_in_a_result_or_a_message(
    limit: int, command: list[str], built: tuple[Path, dict[str, bytes]]
):
    old, _ = built
    result = _kgen(old, *command, limit=limit)
    _ended_well(result, limit)


@pytest.mark.parametrize("limit", [8, 12, 14])
def test_the_cache_under_a_low_limit(
    limit: int, built: tuple[Path, dict[str, bytes]], tmp_path: Path
):
    old, expected = built
    root = tmp_path / "p"
    shutil.copytree(old, root)
    _project(root, 2)
    cache = {"KGEN_NO_CACHE": "", "KGEN_CACHE_DIR": str(tmp_path / "cache")}
    for _ in range(2):  # the cache written, then read
        before = files_below(root / "manifests")
        result = _kgen(root, "build", limit=limit, **cache)
        _ended_well(result, limit)
        after = files_below(root / "manifests")
        assert after == (expected if result.returncode == 0 else before)
        assert _leftovers(root) == []


POOL_REFUSED = """
import resource, sys
import kgen.pipeline.pool_start as pool_start
from kgen.pipeline.parallel import map_units
from kgen.descriptors import open_count

pool_start.workers_within = lambda workers: workers  # no room asked: the pool tries
held = open_count()
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (held + int(sys.argv[1]), hard))
items = list(range(-400, 0))
assert map_units(abs, items) == [abs(item) for item in items]
import multiprocessing
assert multiprocessing.active_children() == []
print("ok")
"""


@pytest.mark.parametrize("room", [2, 5, 7, 9])
def test_a_pool_that_cannot_start_works_in_process(room: int):
    """The pool refused a descriptor part way (a queue, a worker's pipes): the workers
    it started are killed and reaped, and the work done in-process."""
    result = subprocess.run(
        [sys.executable, "-c", POOL_REFUSED, str(room)],
        env=dict(os.environ, KGEN_WORKERS="4"),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert (result.returncode, result.stdout) == (0, "ok\n"), result.stderr


STAGING_AT_THE_LIMIT = """
import errno, os, resource, sys
from kgen.descriptors import open_count
from kgen.output.atomic import Place, open_staging

parent = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (open_count() + int(sys.argv[2]), hard))
try:
    open_staging(Place(parent, "manifests", ""))
except OSError as exc:
    assert exc.errno == errno.EMFILE, exc
finally:
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
print(sorted(os.listdir(sys.argv[1])))
"""


@pytest.mark.parametrize("room", [1, 2, 3])
def test_a_staging_folder_made_at_the_limit_is_removed(room: int, tmp_path: Path):
    """`ulimit -n 5`: the staging folder was made, but no descriptor was left to open
    it, nor to remove it (shutil.rmtree, kgen.output.lean_remove open it first): it
    stayed beside the output, empty. An empty folder needs none to go."""
    result = subprocess.run(
        [sys.executable, "-c", STAGING_AT_THE_LIMIT, str(tmp_path), str(room)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert (result.returncode, result.stdout) == (0, "[]\n"), result.stderr
