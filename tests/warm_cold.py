"""Two built copies of a project, one run with kgen's records and one without
(`KGEN_NO_CACHE`): what the records let kgen skip must never change what it says or
writes. Shared by the tests of the tree record, the job files' record and the early
scan."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.conftest import Result, RunKgen, files_below


def age(root: Path, seconds: int = 60) -> None:
    """Every file and folder below `root` with its mtime `seconds` back; their ctimes,
    which that sets to now, left to age past the clock step (kgen.output.racy)."""
    when = time.time() - seconds
    for path in [root, *root.rglob("*")]:
        os.utime(path, (when, when), follow_symlinks=False)
    time.sleep(0.1)


def same_as_cold(
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
    warm: Path,
    cold: Path,
    *args: str,
    trees: bool = True,
) -> Result:
    """`kgen *args` on `warm`, with its records, after asserting that it says and (with
    `trees`) leaves exactly what the same run on `cold` without them does."""
    found = run_kgen(*args, "-C", str(warm))
    with monkeypatch.context() as off:
        off.setenv("KGEN_NO_CACHE", "1")
        expected = run_kgen(*args, "-C", str(cold))
    assert (found.code, found.out, found.err) == (
        expected.code,
        expected.out.replace(str(cold), str(warm)),
        expected.err.replace(str(cold), str(warm)),
    )
    if trees:
        assert files_below(warm / "manifests") == files_below(cold / "manifests")
    return found
