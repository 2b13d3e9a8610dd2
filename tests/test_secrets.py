"""Credentials found by name and by value (kgen.rules.secret_names, kgen.rules.credentials,
kgen.rules.token_formats), and what is deliberately not one."""

from __future__ import annotations

import time

import pytest

from kgen.rules.credentials import git_url_leaks, leaks, literal
from kgen.rules.secret_names import secret_name


@pytest.mark.parametrize(
    "name",
    [
        "GH_PAT",
        "GITHUB_PAT",
        "PRIVATE_KEY_PEM",
        "GPG_PASSPHRASE",
        "NPM_AUTH",
        "DB_PASSWORD",
        "HTPASSWD",
        "HF_TOKEN",
        "WANDB_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "SECRET_KEY_BASE",
        "SMTP_PASS",
        "DB_PWD",
        "apiKey",
        "keyStorePassword",
        "hf-token",
        "x-api-key",
        "client_secret",
        "_authToken",
        "AccountKey",
    ],
)
def test_names_of_secrets(name: str) -> None:
    assert secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "TOKEN_TTL",
        "TOKEN_TTL_SECONDS",
        "AUTHOR",
        "KEYBOARD_LAYOUT",
        "TOKENIZER",
        "MAX_TOKENS",
        "PASSWORD_FILE",
        "SECRET_NAME",
        "AWS_ACCESS_KEY_ID",
        "AUTH_MODE",
        "TOKEN_URL",
        "PATH",
        "PWD",
        "pad_token",
        "eos-token",
        "decoder_start_token",
        "max_token_length",
    ],
)
def test_names_that_only_look_like_secrets(name: str) -> None:
    assert not secret_name(name)


@pytest.mark.parametrize(
    ("value", "is_literal"),
    [
        ("hunter2", True),
        ("/hunter2", True),  # no blanket exemption for a leading slash
        ("/var/run/secrets/token", False),  # a mounted file, not the secret
        ("./certs/key.pem", False),
        ("$(DB_PASSWORD)", False),
        ("${DB_PASSWORD}", False),
        ("", False),
        ("true", False),
        ("/run/secrets/db password", True),
    ],
)
def test_literal_values(value: str, is_literal: bool) -> None:
    assert literal(value) is is_literal


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("postgres://app:s3cret@db:5432/app", "a password in a URL"),
        ("http://u:p@proxy.corp:3128", "a password in a URL"),
        ("https://user:pa/ss@github.com/o/r", "a password in a URL"),
        ("https://bot%3Ahunter2@github.com/o/r", "a password in a URL"),
        ("https://abcdef0123456789abcdef0123456789@h/r", "a token as a URL's user"),
        (
            "https://h/r.git?private_token=abc",
            "a credential in a URL query (private_token)",
        ),
        ("https://h/r#access_token=abc", "a credential in a URL query (access_token)"),
        (
            "https://acct.blob.core.windows.net/c?sv=1&sig=abc",
            "a credential in a URL query (sig)",
        ),
        ("default:hunter2@redis:6379", "a password in an address"),
        ("ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "a GitHub token"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijkl", "a GitHub token"),
        ("glpat-abcdefghij0123456789", "a GitLab token"),
        ("AKIAIOSFODNN7EXAMPLE", "an AWS access key ID"),
        ("ASIAIOSFODNN7EXAMPLE", "an AWS access key ID"),
        ("xoxb-123456789012-abcdefghijkl", "a Slack token"),
        ("https://hooks.slack.com/services/T0/B0/abcdefgh", "a Slack webhook URL"),
        (
            "-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----",
            "a private key",
        ),
        ("-----BEGIN PGP PRIVATE KEY BLOCK-----\nx", "a private key"),
        ("LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=", "a private key"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig", "a JSON Web Token"),
        ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "a bearer token"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "basic-auth credentials"),
        ("--password=hunter2", "a literal value for password"),
        ("python train.py --hf-token abcd1234", "a literal value for hf-token"),
        ('{"auth": "dXNlcjpwYXNz"}', "a literal value for auth"),
        ("Server=db;Uid=sa;Pwd=hunter2;", "a literal value for Pwd"),
    ],
)
def test_credentials_by_value(text: str, what: str) -> None:
    assert [leak.what for leak in leaks(text)][:1] == [what]


@pytest.mark.parametrize(
    "text",
    [
        "https://github.com/org/repo.git",
        "git@github.com:org/repo.git",
        "ssh://git@github.com/org/repo.git",
        "https://host:8080/org/x@v1",
        "registry.example.com/train:1.0@sha256:0123abcd",
        "mailto:team@example.com",
        "owner: ml-team@example.com",
        "https://db/x?user=app&password=$(DB_PASSWORD)",
        "-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----",
        "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
        "Basic authentication is required",
        "--lr=0.1",
        "--pad_token=</s>",
        "use --token to log in",
        "desk-top task-runner",
        "TOKEN_TTL=3600",
    ],
)
def test_not_credentials(text: str) -> None:
    assert leaks(text) == []


def test_allowed_names_are_not_judged_by_name_but_values_still_are() -> None:
    assert leaks("--sort-key=id", allowed={"sort-key"}) == []
    assert leaks("--sort-key=id") != []
    token = "SORT_KEY=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
    assert [leak.what for leak in leaks(token, allowed={"SORT_KEY"})] == [
        "a GitHub token"
    ]


def test_a_git_remote_takes_no_user_name_at_all() -> None:
    assert git_url_leaks("https://alice@github.com/org/repo.git") != []
    assert leaks("https://alice@github.com/org/repo.git") == []
    assert git_url_leaks("ssh://git@github.com/org/repo.git") == []
    assert git_url_leaks("git@github.com:org/repo.git") == []


@pytest.mark.parametrize(
    "text",
    [
        "y" * 1_000_000 + "=",
        "a:" * 500_000 + "@x",
        "eyJ" * 330_000,
        "ghp_!" * 200_000,
        "--a " * 250_000,
        '"a": "b", ' * 100_000,
        "@" * 1_000_000,
    ],
)
def test_a_megabyte_of_hostile_text_is_one_pass(text: str) -> None:
    # Linear: a pattern tried at every character, or backtracking over a run, takes
    # minutes here. Generous for a slow, shared machine.
    start = time.process_time()
    leaks(text)
    assert time.process_time() - start < 2.0
