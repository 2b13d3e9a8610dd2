"""Hostile inputs against installing and adopting kgen: init, base, Argo CD and Flux (issue 17)."""

from __future__ import annotations

from tests.hostile.case import VALID_JOB, Case

# A job name with a terminal escape, a URL password and a token: the raw name may never
# reach a terminal or CI log, in a usage error either (attack14 F9).
_HOSTILE_NAME = (
    'name: "\\e]0;owned\\a\\e[2J https://admin:Hunter2xHunter2@h.example.com'
    ' ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"\n'
)

CASES: dict[str, Case] = {
    "unknown-job-names-escaped-and-masked": Case(
        {"jobs/x.yaml": VALID_JOB + _HOSTILE_NAME},
        args=("render", "--env", "dev", "typo"),
        expected_exit=2,
        about="render of an unknown job lists the job names masked and escaped",
    ),
    "unknown-job-explain-list-capped": Case(
        {f"jobs/j{i:03}.yaml": VALID_JOB for i in range(30)},
        args=("explain", "typo", "--env", "dev"),
        expected_exit=2,
        about="the names a usage error offers stop at 20 and say how many more",
    ),
}
