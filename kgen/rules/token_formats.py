"""Well-known credential formats: GitHub, GitLab, AWS, Slack, private keys and others
that carry a fixed prefix.

Each format is found by searching its prefixes (at memory speed) and matching its
pattern only there, and only where a word starts: an alternation of seventeen patterns
tried at every character of a megabyte took half a second.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import NamedTuple


class Format(NamedTuple):
    what: str
    prefixes: tuple[str, ...]
    # Matched where a prefix is found; what `keep` matched stays readable when masked.
    pattern: str
    # Characters that may not come just before (the prefix would be inside a word).
    not_after: str


_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_WORD = _ALNUM + "_-"


def _format(what: str, prefixes: str, pattern: str, not_after: str = _ALNUM) -> Format:
    return Format(what, tuple(prefixes.split()), pattern, not_after)


@functools.cache
def compiled(pattern: str) -> re.Pattern[str]:
    """`pattern` compiled once, when first needed: a run that meets no suspicious text
    never pays for compiling the patterns that look closer."""
    return re.compile(pattern)


FORMATS = (
    _format(
        "a GitHub token",
        "ghp_ gho_ ghu_ ghs_ ghr_ github_pat_",
        r"(?P<keep>gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}+",
    ),
    _format(
        "a GitLab token",
        "glpat- gldt- glptt- glrt- glsoat- glcbt- gloas- glft- glimt- glagent- glwt-"
        " glffct-",
        r"(?P<keep>gl[a-z]+-)[A-Za-z0-9_-]{16,}+",
    ),
    _format(
        "an AWS access key ID",
        "AKIA ASIA ABIA ACCA",
        r"(?P<keep>A[A-Z]{3})[A-Z0-9]{16}(?![A-Z0-9])",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    ),
    _format(
        "a Slack token",
        "xoxa- xoxb- xoxp- xoxo- xoxr- xoxs- xapp-",
        r"(?P<keep>xox[abpors]-|xapp-[0-9]-)[A-Za-z0-9-]{10,}+",
    ),
    _format(
        "a Slack webhook URL",
        "hooks.slack.com/",
        r"(?P<keep>hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_-]{8,}+",
        "",
    ),
    _format(
        "a private key",
        "-----BEGIN",
        r"(?P<keep>-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)",
        "",
    ),
    _format(
        "a private key",
        "LS0tLS1CRUdJTi",  # base64 of "-----BEGIN"
        r"(?P<keep>LS0tLS1CRUdJTi)[A-Za-z0-9+/]{20,}+",
        _ALNUM + "+/",
    ),
    _format(
        "a JSON Web Token",
        "eyJ",
        r"(?P<keep>eyJ)[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]*+",
        _WORD,
    ),
    _format("a Google API key", "AIza", r"(?P<keep>AIza)[0-9A-Za-z_-]{35}", _WORD),
    _format("a Hugging Face token", "hf_", r"(?P<keep>hf_)[A-Za-z0-9]{30,}+"),
    _format("an npm token", "npm_", r"(?P<keep>npm_)[A-Za-z0-9]{36,}+"),
    _format("a PyPI token", "pypi-AgE", r"(?P<keep>pypi-)AgE[A-Za-z0-9_-]{50,}+"),
    _format(
        "an API key",
        "sk-",
        r"(?P<keep>sk-)(?:proj-|svcacct-|admin-|ant-[a-z0-9]+-)?[A-Za-z0-9_-]{32,}+",
    ),
    _format(
        "a Stripe key", "sk_live_ rk_live_", r"(?P<keep>[sr]k_live_)[A-Za-z0-9]{16,}+"
    ),
    _format(
        "a Docker Hub token", "dckr_pat_", r"(?P<keep>dckr_pat_)[A-Za-z0-9_-]{16,}+"
    ),
    _format(
        "a bearer token",
        "Bearer bearer BEARER",
        r"(?P<keep>(?i:bearer)[ \t]++)[A-Za-z0-9._~+/-]{16,}+=*+",
    ),
    _format(
        "basic-auth credentials",
        "Basic",
        r"(?P<keep>Basic[ \t]++)(?P<encoded>[A-Za-z0-9+/]{8,}+)={0,2}",
    ),
)
PREFIXES = tuple(prefix for each in FORMATS for prefix in each.prefixes)


class Token(NamedTuple):
    what: str
    start: int
    end: int
    masked: int  # where the part a masked message hides begins


def find_tokens(text: str) -> Iterator[Token]:
    """Every credential of a known format in `text`, format by format."""
    for each in FORMATS:
        for prefix in each.prefixes:
            at = text.find(prefix)
            while at >= 0:
                found = _token_at(text, at, each)
                at = text.find(prefix, found.end if found else at + 1)
                if found is not None:
                    yield found


def _token_at(text: str, at: int, each: Format) -> Token | None:
    if at and text[at - 1] in each.not_after:
        return None
    m = compiled(each.pattern).match(text, at)
    if m is None:
        return None
    if m.group("keep").startswith("Basic") and b":" not in _decoded(m["encoded"]):
        return None
    if m.group("keep") == "LS0tLS1CRUdJTi" and b"PRIVATE KEY" not in _decoded(
        m.group()[:80]
    ):
        return None
    end = m.end()
    if m.group("keep").startswith("-----BEGIN"):
        close = text.find("-----END", end)  # the whole key, up to its end line
        end = close if close >= 0 else len(text)
    return Token(each.what, m.start(), end, m.end("keep"))


def _decoded(encoded: str) -> bytes:
    import base64  # rarely needed: only for a candidate basic-auth or base64 key
    import binascii

    whole = encoded.rstrip("=")
    whole = whole[: len(whole) - len(whole) % 4]
    try:
        return base64.b64decode(whole)
    except (binascii.Error, ValueError):
        return b""
