"""A build of many jobs the cache does not know parses each in the worker that renders
it (kgen.pipeline.pending): one pool, not one to parse and one to render. Nothing a
user sees changes: the same files, the same problems at the same places, the same exit
codes as when the jobs are parsed while loading, on one core or several."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import pytest

from kgen.load import jobs as load_jobs
from kgen.pipeline import parallel
from tests.conftest import REPO, RunKgen, files_below

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import generate

# Loading leaves jobs to the run from this many new ones (kgen.load.jobs), and the
# run uses workers from this many renders (kgen.pipeline.parallel): small here.
MANY = 2
# Never: every job parsed while loading, as before.
NEVER = 1_000_000

BROKEN = {
    "a-unclosed.yaml": "name: [unclosed\n",
    "b-list.yaml": "- framework: pytorch\n",
    "c-unknown.yaml": "framework: caffe\nimage: example.com/x:1\n",
    "d-no-framework.yaml": "image: example.com/x:1\n",
    # The name of a generated job, in a file that sorts after it: left out.
    "pt-job-00004-again.yaml": "name: pt-job-00004\nframework: pytorch\n"
    "image: example.com/x:1\nroles:\n  master: {replicas: 1}\n",
    # And one that sorts before it: the generated job is the one left out.
    "a-first.yaml": "name: pt-job-00007\nframework: pytorch\n"
    "image: example.com/x:1\nroles:\n  master: {replicas: 1}\n",
}


@pytest.fixture(autouse=True)
def small_runs_in_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_PARALLEL", MANY)


def _project(root: Path, broken: dict[str, str] | None = None) -> Path:
    generate(root, 40)
    jobs = sorted((root / "jobs").iterdir())
    # A spec that parses but does not validate, and one whose rules fail.
    jobs[3].write_text(jobs[3].read_text().replace("replicas: ", "replicas: -"))
    jobs[30].write_text(jobs[30].read_text() + "extraKey: 1\n")
    for name, text in (broken or {}).items():
        (root / "jobs" / name).write_text(text)
    return root


def _run(
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    pools: list[str],
    root: Path,
    *args: str,
    workers: int,
    left_to_run: int,
) -> tuple[int, str, str, list[str]]:
    """Exit code, output, errors and the pools forked (`pools`: the test's
    forked_pools)."""
    monkeypatch.setenv("KGEN_WORKERS", str(workers))
    monkeypatch.setattr(load_jobs, "MIN_PARALLEL", left_to_run)
    pools.clear()
    result = run_kgen(*args, "-C", str(root))
    return result.code, result.out, result.err, list(pools)


def test_one_pool_parses_and_renders(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    forked_pools: list[str],
):
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    roots = [tmp_path / name for name in "abc"]
    for root in roots:
        generate(root, 40)
    before = _run(
        run_kgen,
        monkeypatch,
        forked_pools,
        roots[0],
        "build",
        workers=2,
        left_to_run=NEVER,
    )
    assert before[3] == ["fork", "fork"]  # parse, then render
    one_pool = _run(
        run_kgen,
        monkeypatch,
        forked_pools,
        roots[1],
        "build",
        workers=2,
        left_to_run=MANY,
    )
    assert one_pool[3] == ["fork"]
    here = _run(
        run_kgen,
        monkeypatch,
        forked_pools,
        roots[2],
        "build",
        workers=1,
        left_to_run=MANY,
    )
    assert here[3] == []
    assert before[0] == 0, before
    assert one_pool[:3] == before[:3] == here[:3]
    trees = [files_below(root / "manifests") for root in roots]
    assert len(trees[0]) > 400
    assert trees[1] == trees[0] == trees[2]


@pytest.mark.parametrize(
    "command", [("validate",), ("validate", "--format", "json"), ("build",)]
)
def test_problems_are_the_same_whoever_parses(
    command: tuple[str, ...],
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    forked_pools: list[str],
):
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    seen = []
    for index, (workers, left) in enumerate([(2, NEVER), (2, MANY), (1, MANY)]):
        root = _project(tmp_path / str(index), BROKEN)
        code, out, err, _pools = _run(
            run_kgen,
            monkeypatch,
            forked_pools,
            root,
            *command,
            workers=workers,
            left_to_run=left,
        )
        seen.append(
            (code, out.replace(str(root), "ROOT"), err.replace(str(root), "ROOT"))
        )
        # Nothing written, nothing left behind.
        assert sorted(p.name for p in root.iterdir()) == [
            "jobs",
            "kgen.yaml",
            "overlays",
        ]
    assert seen[0][0] == 1
    text = seen[0][1] + seen[0][2]
    assert text.count("duplicate-job") == 2, text
    if "json" in command:  # the jobs checked: those loading keeps
        assert text.count('"jobs/') == 41 + 2 + 8, text
        return
    for expected in (
        "jobs/a-unclosed.yaml:2:1",
        "jobs/b-list.yaml:1:1",
        "unknown framework 'caffe'",
        "missing required key 'framework'",
        "jobs/pt-job-00004-again.yaml:1:7",
        "job name 'pt-job-00004' is also used by jobs/job-00004.yaml",
        "jobs/job-00007.yaml:1:7",
        "job name 'pt-job-00007' is also used by jobs/a-first.yaml",
        "jobs/job-00030.yaml:29:1",
    ):
        assert expected in text, text
    assert seen[1] == seen[0]
    assert seen[2] == seen[0]


def test_a_new_job_named_as_a_known_one(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    forked_pools: list[str],
):
    # The cache knows the generated jobs; the new ones are parsed by the run, which
    # finds a name used twice whichever of the two the cache knew.
    monkeypatch.delenv("KGEN_NO_CACHE", raising=False)
    seen = []
    for index, left in enumerate([NEVER, MANY]):
        root = _project(tmp_path / str(index))
        monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / f"cache-{index}"))
        validate = partial(
            _run,
            run_kgen,
            monkeypatch,
            forked_pools,
            root,
            "validate",
            workers=2,
            left_to_run=left,
        )
        validate()
        for name in ("a-first.yaml", "pt-job-00004-again.yaml", "z-new.yaml"):
            text = BROKEN.get(name, BROKEN["a-first.yaml"].replace("00007", "99999"))
            (root / "jobs" / name).write_text(text)
        code, out, err, pools = validate()
        # Then once more without the cache: a duplicate may rest on a served identity
        # (kgen.pipeline.fresh.doubt).
        once = ["fork"] if left == MANY else ["fork", "fork"]
        assert pools == once * 2
        seen.append(
            (code, out.replace(str(root), "ROOT"), err.replace(str(root), "ROOT"))
        )
    assert seen[0][0] == 1
    assert "is also used by jobs/a-first.yaml" in seen[0][1] + seen[0][2]
    assert seen[1] == seen[0]
