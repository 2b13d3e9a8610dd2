"""A replay's look at its inputs stops at the first file whose bytes differ from the
record's (kgen.pipeline.run_record `sums`): what it decides is what comparing the whole
fingerprint decides, and a one-spec edit reads as far as that spec."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kgen.commands import up_to_date
from kgen.pipeline import run_record
from kgen.pipeline.run_record import Watched, fingerprint
from tests.conftest import REPO, RunKgen

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import edit_spec, generate

WATCHED = Watched(("kgen.yaml",), (("jobs", 1), ("overlays", 1)), ("jobs",))


def _age(root: Path) -> None:
    old = os.stat(root).st_mtime - 60
    for path in [root, *root.rglob("*")]:
        os.utime(path, (old, old), follow_symlinks=False)


def _touch(path: Path) -> None:
    path.write_bytes(path.read_bytes())  # a new mtime, the same bytes


CHANGES: dict[str, Callable[[Path], object]] = {
    "nothing": lambda root: None,
    "the same bytes written again": lambda root: _touch(root / "jobs/job-00000.yaml"),
    "the first job": lambda root: edit_spec(root, 0, 5),
    "the last job": lambda root: edit_spec(root, 5, 5),
    "a job added": lambda root: (root / "jobs/job-9.yaml").write_text("a: 1\n"),
    "a job removed": lambda root: (root / "jobs/job-00003.yaml").unlink(),
    "a file emptied": lambda root: (root / "jobs/job-00002.yaml").write_bytes(b""),
    "kgen.yaml": lambda root: (root / "kgen.yaml").write_text(
        (root / "kgen.yaml").read_text() + "# more\n"
    ),
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_stopping_early_decides_what_the_whole_fingerprint_decides(
    name: str, tmp_path: Path
) -> None:
    root = tmp_path / "p"
    generate(root, 6)
    sums: list[bytes] = []
    recorded = fingerprint(root, WATCHED, sums_into=sums)
    assert recorded == fingerprint(root, WATCHED)  # sums change nothing of it
    assert len(sums) == 1 + 6 + len(os.listdir(root / "overlays"))
    CHANGES[name](root)
    whole = fingerprint(root, WATCHED)
    early = fingerprint(root, WATCHED, recorded_sums=tuple(sums))
    assert (early == recorded) is (whole == recorded)
    assert early in (None, whole)
    assert (whole == recorded) is (name in ("nothing", "the same bytes written again"))


def test_a_one_spec_edit_reads_as_far_as_that_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "p"
    generate(root, 50)
    sums: list[bytes] = []
    recorded = fingerprint(root, WATCHED, sums_into=sums)
    edit_spec(root, 2, 9)
    opened: list[str] = []
    real_open = os.open

    def counted(path: str, *args: object, **kwargs: object) -> int:
        opened.append(os.path.basename(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", counted)
    assert fingerprint(root, WATCHED, recorded_sums=tuple(sums)) is None
    assert opened == ["kgen.yaml", *(f"job-{n:05d}.yaml" for n in range(3))]
    opened.clear()
    assert fingerprint(root, WATCHED) not in (None, recorded)
    assert len(opened) > 50


def test_a_record_whose_sums_are_damaged_is_not_replayed(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "p"
    generate(root, 3)
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "cache"))
    assert run_kgen("build", "-C", str(root)).code == 0
    _age(root)  # a record keeps only inputs settled before the run
    first = run_kgen("build", "-C", str(root))  # recorded
    assert run_kgen("build", "-C", str(root)) == first  # replayed
    real_load = run_record.load_run
    loads: list[object] = []

    def damaged(*args: object) -> object:
        record = real_load(*args)  # type: ignore[arg-type]
        loads.append(record)
        assert record is not None and record.sums
        return record._replace(sums=(b"x", *record.sums[1:]))

    monkeypatch.setattr("kgen.commands.up_to_date.load_run", damaged)
    replayed: list[object] = []
    real_check = up_to_date._tree_is

    def tree_is(*args: object) -> bool:
        replayed.append(args)
        return real_check(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(up_to_date, "_tree_is", tree_is)
    again = run_kgen("build", "-C", str(root))
    assert (again.code, again.out, again.err) == (first.code, first.out, first.err)
    assert loads and not replayed  # the damaged sum stopped it at kgen.yaml's file


def test_a_one_spec_rebuild_opens_each_job_spec_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the record of an unchanged build in the cache, as after any build that
    wrote nothing: its look at the inputs stops at the edited spec, and loading reads
    the edited spec alone (kgen.load.job_record knows the others by their lstat)."""
    from kgen.__main__ import main

    root = tmp_path / "p"
    generate(root, 20)
    monkeypatch.chdir(root)
    monkeypatch.setenv("KGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "argv", ["kgen", "build"])
    assert main() == 0
    _age(root)
    time.sleep(0.1)  # the ctimes the aging set, past the clock step: recorded
    assert main() == 0  # recorded
    edit_spec(root, 4, 11)
    opened: list[str] = []
    real_open = os.open

    def counted(path: str, *args: object, **kwargs: object) -> int:
        if "job-" in os.path.basename(path) and "jobs" in str(path):
            opened.append(os.path.basename(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", counted)
    assert main() == 0
    assert sorted(opened) == sorted(
        ["job-00004.yaml"]  # loading
        + [f"job-{n:05d}.yaml" for n in range(5)]  # the record's, up to the edit
    )
