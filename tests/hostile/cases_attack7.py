"""Hostile command lines and project folders of the seventh round: options repeated or
empty, special files where kgen reads or writes, text echoed back from the command line."""

from __future__ import annotations

from tests.hostile.case import Case

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
}
