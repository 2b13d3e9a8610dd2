"""Hostile inputs against installing and adopting kgen: init, base, Argo CD and Flux (issue 17)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.hostile.case import OUTSIDE_DIR, VALID_JOB, Case, Link

_BASE = "environments:\n  dev:\n    overlays: [v1]\n    namespace: dev\n"
_FLUX = _BASE + "flux:\n  sourceRef: {name: repo}\n"

# A job name with a terminal escape, a URL password and a token: the raw name may never
# reach a terminal or CI log, in a usage error either (attack14 F9).
_HOSTILE_NAME = (
    'name: "\\e]0;owned\\a\\e[2J https://admin:Hunter2xHunter2@h.example.com'
    ' ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"\n'
)


def _fifo_for_kgen_yaml(root: Path) -> None:
    (root / "kgen.yaml").unlink()
    os.mkfifo(root / "kgen.yaml")


def _fifo_named_out(root: Path) -> None:
    os.mkfifo(root / "out")


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
    "base-ref-looks-like-an-option": Case(
        {},
        args=("validate", "--base=--upload-pack=touch /tmp/kgen-pwned"),
        expected_exit=2,
        about="a --base that git would read as an option is refused before git runs",
    ),
    "base-outside-a-repository": Case(
        {},
        args=("validate", "--base", "main"),
        expected_exit=2,
        about="--base in a folder that is not a git repository is a usage error",
    ),
    "flux-output-is-the-jobs-folder": Case(
        {"kgen.yaml": _FLUX + "  output: jobs\n"},
        args=("flux",),
        about="kgen flux replaces its folder whole: it may not be an input",
    ),
    "flux-output-is-a-link-outside": Case(
        {"kgen.yaml": _FLUX, "flux": Link(OUTSIDE_DIR)},
        args=("flux",),
        about="kgen flux never writes through a link",
    ),
    "flux-output-is-the-argocd-folder": Case(
        {
            "kgen.yaml": _FLUX
            + "  output: argocd\nargocd: {repoURL: 'https://git.example.com/r.git'}\n"
        },
        args=("flux",),
        about="flux/ and argocd/ are each kgen's own folder, never the same one",
    ),
    "flux-name-prefix-with-a-token": Case(
        {
            "kgen.yaml": _FLUX
            + "  namePrefix: 'ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345-'\n"
        },
        args=("flux",),
        about="what is committed in flux/ carries no credentials, nor echoes them",
    ),
    "flux-interval-not-a-duration": Case(
        {"kgen.yaml": _FLUX + "  interval: 'soon\\e[2J'\n"},
        args=("flux",),
        about="a duration Flux cannot parse is refused at its line",
    ),
    "flux-durations-past-go-int64": Case(
        {
            "kgen.yaml": _FLUX
            + "  interval: 2562048h\n"
            + f"  timeout: 1{'0' * 30}h{'0' * 10_000}m\n"
        },
        args=("flux",),
        about="a duration past time.Duration's int64 nanoseconds, which Go's parser"
        " and so the API server refuse, is refused at its line, however many digits",
    ),
    "flux-interval-a-mebibyte-of-parts": Case(
        {"kgen.yaml": _FLUX + "  interval: " + "1ms" * 300_000 + "\n"},
        expected_exit=0,
        about="a valid duration of 300,000 parts, just under the 1 MiB a file may be,"
        " is checked against Go's int64 in time linear in its length: summed in"
        " Fractions it took five seconds to load, in every command (0.7 s now,"
        " linear in the parts)",
        seconds=2.0,
    ),
    "argocd-environment-without-namespace": Case(
        {
            "kgen.yaml": "environments:\n  dev: [v1]\n"
            "argocd: {repoURL: 'https://git.example.com/r.git'}\n"
        },
        args=("argocd",),
        about="no Application into a namespace named after the environment",
    ),
    "argocd-name-prefix-too-long": Case(
        {
            "kgen.yaml": _BASE
            + "argocd: {repoURL: 'https://git.example.com/r.git', namePrefix: '"
            + "a" * 300
            + "'}\n"
        },
        args=("argocd",),
        about="an Application name over 253 characters is refused (attack14 F25)",
    ),
    "init-into-a-fifo": Case(
        {},
        args=("init", "--force", "."),
        about="kgen init --force never writes into a FIFO where kgen.yaml should be",
        prepare=_fifo_for_kgen_yaml,
    ),
    "schema-out-is-a-fifo": Case(
        {},
        args=("schema", "--out", "out"),
        about="kgen schema --out onto a FIFO is a located error, not exit 3 (attack14 F13)",
        prepare=_fifo_named_out,
    ),
}
