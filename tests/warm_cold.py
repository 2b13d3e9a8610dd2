"""Two built copies of a project, one run with kgen's records and one without
(`KGEN_NO_CACHE`): what the records let kgen skip must never change what it says or
writes. Shared by the tests of the tree record, the job files' record and the early
scan."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
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


def built_pair(
    tmp_path: Path, run_kgen: RunKgen, make: Callable[[Path], object]
) -> tuple[Path, Path]:
    """Two copies of a project (`make` lays one out at the path it is given), each
    built and aged: warm, then cold."""
    roots = []
    for name in ("warm", "cold"):
        root = tmp_path / name
        make(root)
        assert run_kgen("build", "-C", str(root)).code == 0
        age(root)
        roots.append(root)
    return roots[0], roots[1]


def rewrite(path: Path, change: Callable[[bytes], bytes], *, new_inode: bool) -> None:
    """Change a file's bytes, keeping its size and giving back its mtime (to the
    nanosecond, as `touch -d` does), in place or as a new file renamed over it."""
    before = path.stat()
    data = change(path.read_bytes())
    assert len(data) == before.st_size
    if new_inode:
        spare = path.with_name(path.name + ".new")
        spare.write_bytes(data)
        spare.replace(path)
    else:
        path.write_bytes(data)  # truncated, then written again
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def swap_case(data: bytes) -> bytes:
    """A rendered file's bytes with one word in other letters, the same length."""
    return data.replace(b"Generated", b"GENERATED", 1)


def plant(where: Path, planted: str, elsewhere: Path) -> None:
    """A record file replaced by a FIFO (`planted` "fifo"), or by a link to a copy of
    it at `elsewhere` ("link")."""
    elsewhere.write_bytes(where.read_bytes())
    where.unlink()
    if planted == "fifo":
        os.mkfifo(where)
    else:
        where.symlink_to(elsewhere)


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
