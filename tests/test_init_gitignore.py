"""`kgen init` merges its lines into a folder's .gitignore: the bytes already there are
kept as they are, UTF-8 or not, and a .gitignore too large to read is refused before
anything is written."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

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


def test_an_init_that_fails_part_way_leaves_what_was_there(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    import kgen.output.generated as generated

    (tmp_path / "old").mkdir()
    (tmp_path / "old/.gitignore").write_bytes(b"*.o\n")
    real = generated.write_file
    calls: list[Path] = []

    def full_disk(path: Path, text: str) -> None:
        calls.append(path)
        if len(calls) == 5:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real(path, text)

    monkeypatch.setattr(generated, "write_file", full_disk)
    for folder in ("old", "new/project"):
        calls.clear()
        result = run_kgen("init", folder, cwd=tmp_path)
        assert result.code == 1
        assert ": error: cannot write " in result.err
        assert "No space left on device (io)" in result.err
    assert sorted(os.listdir(tmp_path)) == ["old"]
    assert os.listdir(tmp_path / "old") == [".gitignore"]
    assert (tmp_path / "old/.gitignore").read_bytes() == b"*.o\n"
