"""`kgen init DIR` and `kgen schema --out DIR` into a folder that takes no files (/proc,
/sys): a problem at that folder and exit 1, not an internal error. (The error differs
as root and as a user, so these are not in the hostile corpus.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import RunKgen


@pytest.mark.parametrize(
    "args",
    [
        ("init", "/proc/kgen-new"),
        ("init", "/sys/kgen-new"),
        ("schema", "--out", "/proc/kgen-new"),
        ("schema", "--out", "/sys/kgen-new/schemas"),
    ],
)
def test_a_folder_that_takes_no_files(
    args: tuple[str, ...], tmp_path: Path, run_kgen: RunKgen
):
    if not Path(args[-1]).parent.parent.is_dir():
        pytest.skip("no /proc or /sys here")
    assert run_kgen("init", cwd=tmp_path).code == 0
    result = run_kgen(*args, cwd=tmp_path)
    place = "/".join(args[-1].split("/")[:3])
    assert (result.code, result.out) == (1, "")
    assert result.err.startswith(f"{place}: error: cannot write {place}: ")
    assert result.err.endswith(
        " (io)\n    hint: choose a folder kgen can write to\nkgen: 1 error in 1 file\n"
    )
