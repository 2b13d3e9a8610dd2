"""`kgen init` merges its lines into a folder's .gitignore: the bytes already there are
kept as they are, UTF-8 or not, and a .gitignore too large to read is refused before
anything is written."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import RunKgen

KGEN_LINES = (
    b"# kgen's build lock and staging folders beside the output root\n.*.kgen-*\n"
)


def test_a_gitignore_that_is_not_utf8_keeps_its_bytes(tmp_path: Path, run_kgen):
    (tmp_path / ".gitignore").write_bytes(b"caf\xe9/\n\xff\xfe*.o")
    assert run_kgen("init", cwd=tmp_path).code == 0
    assert (tmp_path / ".gitignore").read_bytes() == (
        b"caf\xe9/\n\xff\xfe*.o\n" + KGEN_LINES
    )


def test_a_gitignore_over_16_mib_is_refused_unread(tmp_path: Path, run_kgen: RunKgen):
    huge = tmp_path / ".gitignore"
    with huge.open("wb") as file:
        file.truncate(17 * 1024 * 1024)
    result = run_kgen("init", cwd=tmp_path)
    assert (result.code, result.out) == (1, "")
    assert result.err == (
        ".gitignore: error: .gitignore is 17,825,792 bytes, over 16 MiB; kgen init"
        " does not read it to add its lines, and wrote nothing (io)\n"
        "    hint: add the line .*.kgen-* to it yourself, or shorten it\n"
        "kgen: 1 error in 1 file\n"
    )
    assert os.listdir(tmp_path) == [".gitignore"]
    assert huge.stat().st_size == 17 * 1024 * 1024
