"""No message echoes a secret, in any output format: credentials in a value kgen quotes
are masked (kgen.errors.masked), keeping what says what they were."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kgen.errors import Problem
from kgen.rules.credentials import mask
from tests.conftest import RunKgen

SECRETS = (
    "hunter2",
    "s3cr3tPass",
    "q9Zr7LxT2vBn",
    "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
)
JOBS = {
    # Refused as an image, and quoted in the message.
    "jobs/image.yaml": """
        framework: pytorch
        image: admin:hunter2@registry.example.com/train:1.0
        roles: {master: {replicas: 1}}
    """,
    # A token as the repository's user, and a code-sync URL with a password.
    "jobs/sync.yaml": """
        framework: pytorch
        image: registry.example.com/train:1.0
        codeSync: {repo: "https://bot:s3cr3tPass@github.com/org/x.git", ref: main}
        roles: {master: {replicas: 1}}
    """,
    # A literal env secret, and a wrong type whose message quotes the value.
    "jobs/env.yaml": """
        framework: pytorch
        image: registry.example.com/train:1.0
        env:
          - {name: DB_PASSWORD, value: hunter2}
        roles:
          master: {replicas: "https://ci:q9Zr7LxT2vBn@ci.example.com/x"}
    """,
    "jobs/token.yaml": """
        framework: pytorch
        image: registry.example.com/train:1.0
        imagePullPolicy: ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789
        roles: {master: {replicas: 1}}
    """,
}


@pytest.mark.parametrize(
    "fmt", ["text", "parsable", "json", "github", "sarif", "junit"]
)
def test_no_format_prints_a_secret(
    fmt: str, project: Callable[..., Path], run_kgen: RunKgen
) -> None:
    root = project(JOBS)
    result = run_kgen("validate", "--format", fmt, cwd=root)
    output = result.out + result.err
    assert result.code == 1, output
    for secret in SECRETS:
        assert secret not in output, (fmt, secret)
    assert "admin:***@registry.example.com/train:1.0" in output
    assert "https://ci:***@ci.example.com/x" in output
    assert "ghp_***" in output


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("https://bot:pw@github.com/o/r.git", "https://bot:***@github.com/o/r.git"),
        ("https://user:pa/ss@github.com/o/r", "https://user:***@github.com/o/r"),
        ("https://bot%3Apw@github.com/o/r", "https://bot%3A***@github.com/o/r"),
        ("https://ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ01@h/r", "https://***@h/r"),
        ("https://h/r?access_token=abc&x=1", "https://h/r?access_token=***&x=1"),
        ("'user:pass@registry/x:1' is bad", "'user:***@registry/x:1' is bad"),
        ("--password=hunter2 --lr=0.1", "--password=*** --lr=0.1"),
        ("AKIAIOSFODNN7EXAMPLE", "AKIA***"),
        ("xoxb-123456789012-abcdefghijkl", "xoxb-***"),
        ("glpat-abcdefghij0123456789", "glpat-***"),
        (
            "-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----",
            "-----BEGIN EC PRIVATE KEY-----***-----END EC PRIVATE KEY-----",
        ),
        # Nothing to mask: the text comes back as it was.
        ("pytorch:2.1@sha256:abc", "pytorch:2.1@sha256:abc"),
        ("git@github.com:org/repo.git", "git@github.com:org/repo.git"),
        ("https://user:$(PASSWORD)@db/x", "https://user:$(PASSWORD)@db/x"),
        ("TOKEN_TTL=3600", "TOKEN_TTL=3600"),
    ],
)
def test_mask(text: str, masked: str) -> None:
    assert mask(text) == masked
    assert mask(masked) == masked, "masking twice changes nothing more"


def test_every_problem_field_a_reader_sees_is_masked() -> None:
    problem = Problem(
        "'https://u:hunter2@h/x' is not a git repository URL",
        "invalid-value",
        hint="try https://u:hunter2@h/x.git",
        context="environment https://u:hunter2@h",
    )
    assert "hunter2" not in f"{problem.message}{problem.hint}{problem.context}"
    assert problem.message == "'https://u:***@h/x' is not a git repository URL"
