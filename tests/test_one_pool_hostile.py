"""Hostile job files among many new ones: whoever parses them (loading, the run in this
process, or the worker that renders each; kgen.pipeline.pending), a user sees the same
bytes, the same exit code, and nothing written. The hostile corpus (tests/hostile) uses
small projects, which always parse while loading."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgen.load import jobs as load_jobs
from kgen.pipeline import parallel
from kgen.pipeline import run as run_module
from tests.conftest import REPO, RunKgen, files_below, no_hang

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import generate

MANY = 2  # as in tests/test_one_pool.py: small projects take the paths of large ones
NEVER = 1_000_000
# (KGEN_WORKERS, load_jobs.MIN_PARALLEL): parsed while loading; left pending and
# parsed by the render workers; left pending and parsed by the run in this process.
PATHS = {"loading": (2, NEVER), "workers": (2, MANY), "here": (1, MANY)}
FORKS = {"loading": ["fork", "fork"], "workers": ["fork"], "here": []}
MIN_REAL = (
    parallel.MIN_PARALLEL
)  # 200 (kgen.load.jobs uses it): the large test keeps it
PT = "framework: pytorch\nimage: example.com/x:1\nroles:\n  master: {replicas: 1}\n"
SECRET = "AKIAhostile0secret0value"
Maker = Callable[[Path], None]


def _text(text: str | bytes) -> Maker:
    def make(path: Path) -> None:
        path.write_bytes(text if isinstance(text, bytes) else text.encode())

    return make


def _bomb() -> str:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdef", "bcdefg", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return PT + "\n".join(lines) + "\n"


HOSTILE: dict[str, dict[str, Maker]] = {
    "not-utf8": {"a-bytes.yaml": _text(b"framework: pytorch\nname: \xff\xfe\n")},
    "bom": {"a-bom.yaml": _text(b"\xef\xbb\xbfname: with-bom\n" + PT.encode())},
    "empty-list-scalar": {
        "a-empty.yaml": _text(""),
        "b-list.yaml": _text("- framework: pytorch\n"),
        "c-scalar.yaml": _text("just words\n"),
    },
    "alias-bomb": {"a-bomb.yaml": _text(_bomb())},
    "deep": {"a-deep.yaml": _text(PT + "x: " + "[" * 5000 + "]" * 5000 + "\n")},
    "huge": {"a-huge.yaml": _text(PT + "# " + "x" * (1 << 21) + "\n")},
    "tags": {
        "a-object.yaml": _text("!!python/object:os.system\nframework: pytorch\n"),
        "b-local.yaml": _text("framework: !custom pytorch\nimage: x\n"),
    },
    "not-files": {
        "a-fifo.yaml": os.mkfifo,
        "b-link-out.yaml": lambda path: path.symlink_to("/etc/hostname"),
        "c-folder.yaml": Path.mkdir,
    },
    "framework": {
        "a-caffe.yaml": _text("framework: caffe\nimage: x\n"),
        "b-list.yaml": _text("framework: [pytorch]\nimage: x\n"),
        "c-none.yaml": _text("image: x\n"),
    },
    "secret": {
        "a-secret.yaml": _text(
            "name: leaky\n" + PT + "env:\n"
            f"  - {{name: AWS_SECRET_ACCESS_KEY, value: {SECRET}, bogus: 1}}\n"
            f"  - {{name: DB_PASSWORD, value: {SECRET}, valueFrom: 3}}\n"
        )
    },
    "names": {
        # Earlier and later than the generated job of the same name, a name that
        # differs only once normalised, and names that are not strings.
        "a-first.yaml": _text("name: pt-job-00007\n" + PT),
        "zz-later.yaml": _text("name: pt-job-00004\n" + PT),
        "a-upper.yaml": _text("name: Pt-Job-00001\n" + PT),
        "a-under.yaml": _text("name: pt_job_00001\n" + PT),
        "b-number.yaml": _text("name: 123\n" + PT),
        "b-list.yaml": _text("name: [a]\n" + PT),
    },
    "labels-selectors": {
        # No environment selects it; labels that are no mapping.
        "a-nowhere.yaml": _text("name: nowhere\nlabels: {legacy: no}\n" + PT),
        "b-list.yaml": _text("name: listed\nlabels: [a, b]\n" + PT),
        "c-deep.yaml": _text("name: deeper\nlabels: {legacy: [ok]}\n" + PT),
    },
}

# What `validate` says of each kind (the same whoever parses: the test compares).
SAID = {
    "not-utf8": ["jobs/a-bytes.yaml:2:7: error: file is not valid UTF-8"],
    "bom": ["kgen: 25 jobs in 4 environments (98 renders): valid"],
    "empty-list-scalar": [
        "jobs/a-empty.yaml:1:1: error: a job spec must be a YAML mapping",
        "jobs/b-list.yaml:1:1: error: a job spec must be a YAML mapping",
        "jobs/c-scalar.yaml:1:1: error: a job spec must be a YAML mapping",
    ],
    "alias-bomb": ["jobs/a-bomb.yaml:5:26: error: document expands to more than"],
    "deep": ["jobs/a-deep.yaml:5:104: error: structure is nested more than 100"],
    "huge": ["jobs/a-huge.yaml:1:1: error: file is 2097228 bytes"],
    "tags": ["jobs/a-object.yaml:1:1: error: YAML tag", "jobs/b-local.yaml:1:12:"],
    "not-files": [
        "jobs/a-fifo.yaml: error: jobs/a-fifo.yaml is a named pipe (FIFO), not a file",
        "jobs/b-link-out.yaml: error: jobs/b-link-out.yaml links to a file outside",
        "jobs/c-folder.yaml: error: jobs/c-folder.yaml is a folder, not a file",
    ],
    "framework": [
        "jobs/a-caffe.yaml:1:12: error: unknown framework 'caffe'",
        "jobs/b-list.yaml:1:12: error: unknown framework [pytorch]",
        "jobs/c-none.yaml:1:1: error: missing required key 'framework'",
    ],
    "secret": [
        "jobs/a-secret.yaml:7:68: error: unknown key 'bogus'",
        "jobs/a-secret.yaml:8:58: error: unknown key 'valueFrom'",
    ],
    "names": [
        "jobs/a-under.yaml:1:7: error: 'pt_job_00001' is not a valid name",
        "jobs/a-upper.yaml:1:7: error: 'Pt-Job-00001' is not a valid name",
        "jobs/b-list.yaml:1:7: error: expected a string, got a list",
        "jobs/b-number.yaml:1:7: error: expected a string, got the number 123",
        "jobs/job-00007.yaml:1:7: error: job name 'pt-job-00007' is also used by"
        " jobs/a-first.yaml",
        "jobs/zz-later.yaml:1:7: error: job name 'pt-job-00004' is also used by"
        " jobs/job-00004.yaml",
    ],
    "labels-selectors": [
        "jobs/b-list.yaml:2:9: error: expected a mapping, got a list",
        "jobs/c-deep.yaml:2:18: error: expected a string, got a list",
    ],
}


def _project(root: Path, run_kgen: RunKgen, hostile: dict[str, Maker]) -> None:
    """A generated project, built once cleanly, with `hostile` added to its jobs."""
    generate(root, 24)
    assert run_kgen("build", "-C", str(root)).code == 0
    for name, make in hostile.items():
        make(root / "jobs" / name)


def _outside_jobs(root: Path) -> tuple[list[str], dict[str, bytes]]:
    """The project's entries, and its files outside jobs/ with their bytes."""
    files = files_below(root)
    return sorted(p.name for p in root.iterdir()), {
        name: raw for name, raw in files.items() if not name.startswith("jobs/")
    }


def _runs(
    root: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    pools: list[str],
    path: str,
    commands: list[tuple[str, ...]],
) -> list[tuple[int, str, str]]:
    workers, left = PATHS[path]
    monkeypatch.setenv("KGEN_WORKERS", str(workers))
    monkeypatch.setattr(load_jobs, "MIN_PARALLEL", left)
    seen = []
    for command in commands:
        pools.clear()
        result = run_kgen(*command, "-C", str(root))
        if command == ("validate",):  # the path this run took
            assert pools == FORKS[path], (path, pools)
        seen.append(
            (
                result.code,
                result.out.replace(str(root), "ROOT"),
                result.err.replace(str(root), "ROOT"),
            )
        )
    return seen


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_jobs_whoever_parses_them(
    kind: str,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    forked_pools: list[str],
):
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    monkeypatch.setattr(parallel, "MIN_PARALLEL", MANY)
    commands = [
        ("validate",),
        ("validate", "--format", "json"),
        ("build",),
        ("build", "--check"),
    ]
    seen = {}
    for path in PATHS:
        root = tmp_path / path
        _project(root, run_kgen, HOSTILE[kind])
        before = _outside_jobs(root)
        seen[path] = _runs(root, run_kgen, monkeypatch, forked_pools, path, commands)
        if all(code != 0 for code, _out, _err in seen[path]):
            # Nothing written, nothing left behind (no staging folder, no lock).
            assert _outside_jobs(root) == before, path
    assert seen["workers"] == seen["loading"]
    assert seen["here"] == seen["loading"]
    for code, out, err in seen["loading"]:
        assert code in (0, 1), (code, out, err)
        assert "Traceback" not in err and "internal error" not in err, err
        assert SECRET not in out + err
    for said in SAID[kind]:
        assert said in seen["loading"][0][2], seen["loading"][0][2]
    fine = kind == "bom"
    assert [code for code, _out, _err in seen["loading"]][:3] == (
        [0, 0, 0] if fine else [1, 1, 1]
    ), seen["loading"]


def test_many_new_jobs_with_hostile_ones_at_full_size(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    forked_pools: list[str],
):
    # At the real thresholds (no small-project shortcut): 250 new jobs and every hostile
    # kind at once; without the cache, a fresh clone, and with the cache that left.
    hostile = {
        f"{kind}-{name}": make
        for kind, files in HOSTILE.items()
        if kind != "huge"
        for name, make in files.items()
    }
    seen = {}
    for path in ("loading", "workers"):
        root = tmp_path / path
        generate(root, 250)
        for name, make in hostile.items():
            make(root / "jobs" / name)
        monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / f"cache-{path}"))
        workers, left = PATHS[path]
        monkeypatch.setenv("KGEN_WORKERS", str(workers))
        monkeypatch.setattr(
            load_jobs, "MIN_PARALLEL", left if path == "loading" else MIN_REAL
        )
        runs = []
        for no_cache in ("1", "", ""):
            monkeypatch.setenv("KGEN_NO_CACHE", no_cache)
            forked_pools.clear()
            result = run_kgen("validate", "-C", str(root))
            runs.append((result.code, result.out, result.err, len(forked_pools)))
        seen[path] = runs
    # Parsed where rendered: one pool. The third run finds every render in the cache
    # the second left, whoever parsed (no pool), but its duplicate-job error may rest
    # on a served identity, so it runs once more without the cache, as the first did
    # (kgen.pipeline.fresh.doubt).
    assert [run[3] for run in seen["workers"]] == [1, 1, 1]
    assert [run[3] for run in seen["loading"]] == [2, 2, 2]
    assert [run[:3] for run in seen["workers"]] == [run[:3] for run in seen["loading"]]
    code, out, err, _pools = seen["loading"][0]
    assert code == 1 and "duplicate-job" in out + err
    assert "Traceback" not in err and SECRET not in out + err


class _Unrebuilt(Exception):
    """A crash whose exception a pool cannot rebuild from its args."""

    def __init__(self, rule: str, job: str) -> None:
        super().__init__(f"{rule} failed on {job}")


def test_a_crash_that_cannot_cross_back_from_a_worker(
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    forked_pools: list[str],
):
    # A render (a rule) that crashes with such an exception in a worker stopped the
    # pool's result thread: the run waited for ever. Now an internal error, exit 3,
    # the same message whoever parses and renders, and nothing written.
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    monkeypatch.setattr(parallel, "MIN_PARALLEL", MANY)
    real = run_module.render_one

    def crashing(job: Any, *args: Any) -> Any:
        if job.file == "jobs/job-00013.yaml":
            raise _Unrebuilt("a rule", job.file)
        return real(job, *args)

    seen = {}
    for path in PATHS:
        root = tmp_path / path
        _project(root, run_kgen, {})
        before = _outside_jobs(root)
        monkeypatch.setattr(run_module, "render_one", crashing)
        with no_hang("the run hung"):
            seen[path] = _runs(
                root, run_kgen, monkeypatch, forked_pools, path, [("build",)]
            )
        monkeypatch.setattr(run_module, "render_one", real)
        assert _outside_jobs(root) == before
    assert seen["loading"] == [
        (
            3,
            "",
            "kgen: internal error: RuntimeError: _Unrebuilt: a rule failed on"
            " jobs/job-00013.yaml (please report this as a bug)\n",
        )
    ]
    assert seen["workers"] == seen["loading"]
    assert seen["here"] == seen["loading"]
