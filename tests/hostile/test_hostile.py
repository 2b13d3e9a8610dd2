"""Every hostile case ends as its expected/<case>.txt says: the exit code on the first
line, then kgen's exact output. `make golden` rewrites them; review the diff.

Whatever the input, kgen never prints a traceback, never exits 3 (internal error), and
every error it reports names the file it is about.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import RunKgen
from tests.hostile.corpus import CASES, materialise

EXPECTED = Path(__file__).parent / "expected"
# An error line: `file:line:col: error: ...` or at least `file: error: ...`.
LOCATED = re.compile(r"^[^:\n]+(:\d+:\d+)?: (error|warning): ", re.MULTILINE)


def test_the_corpus_is_large_enough():
    assert len(CASES) >= 60
    assert sorted(p.stem for p in EXPECTED.glob("*.txt")) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_case(
    name: str, tmp_path: Path, run_kgen: RunKgen, update_golden: bool
) -> None:
    case = CASES[name]
    root = materialise(case, tmp_path / "project")
    result = run_kgen(*case.args, cwd=root)
    actual = f"exit {result.code}\n{result.out}{result.err}"
    expected_file = EXPECTED / f"{name}.txt"
    if update_golden:
        expected_file.write_text(actual)
    assert expected_file.exists(), f"no expected/{name}.txt; run make golden and review"
    assert actual == expected_file.read_text()
    assert result.code == case.expected_exit, actual
    assert "Traceback" not in actual
    if result.code == 1:
        assert LOCATED.search(result.out + result.err), actual
