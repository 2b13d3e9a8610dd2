"""Hostile command lines and project folders of the seventh round: options repeated or
empty, special files where kgen reads or writes, text echoed back from the command line."""

from __future__ import annotations

from tests.hostile.case import Case
from tests.hostile.cases_attack import IMPORTED

# A folder name longer than any file system holds (255 bytes).
LONG = "x" * 300

CASES: dict[str, Case] = {
    "attack7-env-repeated": Case(
        {},
        args=("validate", "--env", "dev", "--env", "dev"),
        expected_exit=0,
        about="one environment named twice is rendered once",
    ),
    "attack7-crd-repeated": Case(
        {},
        args=("validate", "--crd", "crds/missing.yaml", "--crd", "./crds/missing.yaml"),
        about="one CRD file named twice (two spellings) is one problem",
    ),
    "attack7-crd-empty": Case(
        {}, args=("validate", "--crd", ""), expected_exit=2, about="a usage error"
    ),
    # --- folders kgen cannot write into: a located problem, never an internal error
    # (/proc and /sys, whose error differs as root: tests/test_unwritable_folders.py)
    "attack7-init-a-name-too-long": Case({}, args=("init", f"new/{LONG}/project")),
    "attack7-schema-a-name-too-long": Case({}, args=("schema", "--out", LONG)),
    "attack7-import-out-a-name-too-long": Case(
        {"in/job.yaml": IMPORTED},
        args=("import", "in/job.yaml", "--out", LONG),
        expected_exit=2,
    ),
}
