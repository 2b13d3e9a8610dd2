"""Hostile command lines and project folders of the seventh round: options repeated or
empty, special files where kgen reads or writes, text echoed back from the command line."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

from tests.hostile.case import VALID_JOB, Case, Link, job, job_with
from tests.hostile.cases_attack import IMPORTED


def _socket(*paths: str) -> Callable[[Path], None]:
    """A listening socket's file at each of `paths` (bound from its folder: a socket's
    path is at most 108 bytes, and a test's folder can be longer)."""

    def prepare(root: Path) -> None:
        here = os.getcwd()
        for path in paths:
            place = root / path
            place.parent.mkdir(parents=True, exist_ok=True)
            place.unlink(missing_ok=True)
            os.chdir(place.parent)
            try:
                with socket.socket(socket.AF_UNIX) as server:
                    server.bind(place.name)
            finally:
                os.chdir(here)

    return prepare


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
    # --- sockets where kgen reads or writes: said for what they are
    "attack7-job-is-a-socket": Case({}, prepare=_socket("jobs/served.yaml")),
    "attack7-job-link-to-a-socket": Case(
        {"jobs/linked.yaml": Link("jobs/served.sock")},
        prepare=_socket("jobs/served.sock"),
    ),
    "attack7-overlay-is-a-socket": Case({}, prepare=_socket("overlays/v1.yaml")),
    "attack7-project-file-is-a-socket": Case({}, prepare=_socket("kgen.yaml")),
    "attack7-resource-is-a-socket": Case({}, prepare=_socket("resources/served.yaml")),
    "attack7-crd-is-a-socket": Case(
        {}, args=("validate", "--crd", "crd.yaml"), prepare=_socket("crd.yaml")
    ),
    "attack7-output-file-is-a-socket": Case(
        {}, args=("build",), prepare=_socket("manifests/dev/train.pytorchjob.yaml")
    ),
    "attack7-lock-is-a-socket": Case(
        {}, args=("build",), prepare=_socket(".manifests.kgen-lock")
    ),
    "attack7-gitignore-is-a-socket": Case(
        {}, args=("init", "--force"), prepare=_socket(".gitignore")
    ),
    "attack7-schema-file-is-a-socket": Case(
        {},
        args=("schema", "--out", "schemas"),
        prepare=_socket("schemas/kgen-job.schema.json"),
    ),
    # --- what the command line said, echoed back at most 256 characters a word
    "attack7-explain-a-100kb-field": Case(
        {}, args=("explain", "train", "--env", "dev", "f" * 100_000), expected_exit=2
    ),
    "attack7-explain-a-100kb-field-of-words": Case(
        {}, args=("explain", "train", "--env", "dev", "f " * 50_000), expected_exit=2
    ),
    "attack7-env-a-100kb-name": Case(
        {}, args=("validate", "--env", "e" * 100_000), expected_exit=2
    ),
    "attack7-format-a-100kb-value": Case(
        {}, args=("validate", "--format", "j" * 100_000), expected_exit=2
    ),
    "attack7-a-100kb-option": Case(
        {}, args=("validate", "--" + "o" * 100_000), expected_exit=2
    ),
    "attack7-a-100kb-command": Case({}, args=("c" * 100_000,), expected_exit=2),
    # --- one file named twice is imported once
    "attack7-import-one-file-by-two-names": Case(
        {"in/job.yaml": IMPORTED, "in/again.yaml": Link("in/job.yaml")},
        args=(
            "import",
            "in/job.yaml",
            "./in/job.yaml",
            "in/again.yaml",
            "--out",
            "new",
        ),
        expected_exit=0,
    ),
    # --- encodings a byte order mark names
    "attack7-utf32-le-job": Case(job(("\ufeff" + VALID_JOB).encode("utf-32-le"))),
    "attack7-utf32-be-job": Case(job(("\ufeff" + VALID_JOB).encode("utf-32-be"))),
    "attack7-utf32-overlay": Case(
        {"overlays/v1.yaml": "\ufeff target: v1\n".encode("utf-32")}
    ),
    # --- line breaks to YAML that git and editors do not count: positions would drift
    "attack7-line-separator-in-a-comment": Case(
        job("# one\u2028two\n" + VALID_JOB + "replicaz: 3\n")
    ),
    "attack7-paragraph-separator-in-a-value": Case(job_with("description: a\u2029b")),
    "attack7-next-line-in-a-comment": Case(job(VALID_JOB + "# a\x85b\nreplicaz: 3\n")),
    "attack7-lone-carriage-return": Case(job("# old Mac\r" + VALID_JOB)),
    "attack7-line-separator-in-an-overlay": Case(
        {"overlays/v1.yaml": "target: v1\u2028\n"}
    ),
}
