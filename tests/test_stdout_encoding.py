"""kgen's standard output is UTF-8 whatever the locale: a report that names `trän`
under LC_ALL=C (without Python's locale coercion) or PYTHONIOENCODING=ascii is the
same valid JSON, not an internal error. A process of its own: only the real descriptor
1 is set up so (kgen.cli_stdout)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

JOB = "framework: pytorch\nimage: r/t:1\nname: trän\nroles: {master: {replicas: 1}}\n"
ENVIRONMENTS = {
    "ascii": {"PYTHONIOENCODING": "ascii"},
    "latin-1": {"PYTHONIOENCODING": "latin-1"},
    "C": {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
}


@pytest.mark.parametrize("name", list(ENVIRONMENTS))
def test_a_json_report_is_utf8_in_any_locale(name: str, tmp_path: Path):
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs/u.yaml").write_text(JOB)
    (tmp_path / "kgen.yaml").write_text("environments: {dev: {overlays: []}}\n")
    env = {**os.environ, **ENVIRONMENTS[name]}
    if name == "C":
        env.pop("PYTHONIOENCODING", None)
    done = subprocess.run(
        [sys.executable, "-m", "kgen", "validate", "--format", "json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout.decode("utf-8"))
    assert "'trän' is not a valid name" in json.dumps(report, ensure_ascii=False)
