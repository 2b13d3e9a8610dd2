"""Credentials written into text, found by what they look like: a password or token in a
URL (user-info, query or fragment), a well-known token format, a private key, or a
literal value after a secret's name (`password=…`, `--hf-token …`, `"auth": "…"`).

kgen.rules.secrets reports them; kgen.errors masks them in every message. Every pattern
starts only where a word starts and never backtracks inside a run (possessive
quantifiers), so a megabyte of hostile text costs one pass, not a pass per character.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from typing import NamedTuple

from kgen.rules.secret_names import secret_name
from kgen.rules.token_formats import PREFIXES, compiled, find_tokens

# Cheap test first: most text holds none of these, and then nothing else runs.


def _screens(prefixes: tuple[str, ...]) -> list[tuple[str, re.Pattern[str]]]:
    """Per rare character, a pattern for the token prefixes found at it (`ghp_` at its
    `_`, looking behind): a pattern that starts with one character is searched at
    memory speed, where one alternation of them all, or each prefix in turn, cost
    twenty to forty microseconds a spec."""
    behind: dict[str, list[str]] = {}
    ahead: dict[str, list[str]] = {}
    for prefix in prefixes:
        at = next(
            (
                i
                for i, c in enumerate(prefix)
                if i and (c in "_J" or (c == "-" and prefix[i - 1].isalnum()))
            ),
            None,
        )
        if at is None:
            ahead.setdefault(prefix[0], []).append(re.escape(prefix[1:]))
        else:
            behind.setdefault(prefix[at], []).append(re.escape(prefix[: at + 1]))
    found = {c: [f"(?<={p})" for p in ps] for c, ps in behind.items()}
    for c, ps in ahead.items():
        found.setdefault(c, []).append("(?=" + "|".join(ps) + ")")
    return [
        (c, re.compile(re.escape(c) + "(?:" + "|".join(ps) + ")"))
        for c, ps in found.items()
    ]


_SCREENS = _screens(PREFIXES)


def _marked(text: str) -> bool:
    return (
        "@" in text
        or "=" in text
        or "://" in text
        or any(c in text and rx.search(text) is not None for c, rx in _SCREENS)
    )


_MEMBER = re.compile(r"\"[ \t]*:")
_FLAG_AND_VALUE = re.compile(r"(?<!\S)--?[A-Za-z][\w.-]*+[ \t]")
_MEMBER_IN_JSON = '\\"'  # a quote inside a value, in JSON
_FLAG_IN_JSON = re.compile(r'"--?[A-Za-z][\w.-]*+[ \t]')


def _suspect(text: str) -> bool:
    return (
        _marked(text)
        or ('"' in text and _MEMBER.search(text) is not None)
        or ("-" in text and _FLAG_AND_VALUE.search(text) is not None)
    )


def suspect_json(text: str) -> bool:
    """Whether a JSON document may hold a credential in one of its strings (where a
    quote is `\\"` and every string starts with `"`): without, none needs a look."""
    return (
        _marked(text)
        or _MEMBER_IN_JSON in text
        or " -" in text
        or _FLAG_IN_JSON.search(text) is not None
    )


_URL = r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*+://[^\s'\"<>`]++"
# `user:password@host` without a scheme (a proxy, a Redis address).
_BARE = (
    r"(?<![\w.%+:/@-])(?P<user>[\w.%+-]++):(?P<pw>[^\s@/:'\"]++)@(?=[A-Za-z0-9])"
    r"(?!sha(?:256|384|512):)"
    r"|(?<![\w.%+:/@-])[\w.+-]++%3[aA](?P<pw2>[^\s@/:'\"]++)@(?=[A-Za-z0-9])"
)
# Schemes written without `//`, whose `x:y@host` is an address, not credentials.
_ADDRESS_SCHEMES = frozenset({"mailto", "tel", "sip", "sips", "xmpp", "urn"})
# The patterns below compile on first use (most runs never need them).

# A secret's name then its literal value: `NAME=value` (also --flag=value), a JSON
# member, and `--flag value` in a command line.
_ASSIGNED = (
    r"(?<![\w.-])-{0,2}(?P<name>[A-Za-z_][\w.-]*+)[ \t]*+=[ \t]*+"
    r"(?P<value>\"[^\"\n]*+\"|'[^'\n]*+'|[^\s;&|'\"`,)]++)"
    r"|\"(?P<jname>[^\"\n]{1,80}+)\"[ \t]*+:[ \t]*+\"(?P<jvalue>(?:[^\"\\\n]|\\.)*+)\""
    r"|(?<!\S)--?(?P<fname>[A-Za-z][\w.-]*+)[ \t]++(?P<fvalue>[^\s;&|'\"`-][^\s;&|'\"`]{3,}+)"
)
_PORT = r"[^:]*:[0-9]*"
_TOKEN_LIKE = r"[A-Za-z0-9_-]{20,}"
_PLAIN_PATH = r"(?:/[\w.@+~-]+){2,}/?|(?:\.{1,2}|~)(?:/[\w.@+~-]+)+/?"
_NOT_LITERALS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "none"})


class Leak(NamedTuple):
    """A credential in text: what it is, and the span a masked message hides."""

    what: str
    start: int
    end: int


def leaks(text: str, *, allowed: Collection[str] = ()) -> list[Leak]:
    """Every credential in `text`, in order. Names in `allowed` are not judged by name
    (kgen.yaml and job `lint.allowLiterals`); what a value looks like always is."""
    if not _suspect(text):
        return []
    found = [
        leak
        for m in compiled(_URL).finditer(text)
        for leak in url_leaks(m.group(), m.start())
    ]
    for m in compiled(_BARE).finditer(text):
        group = "pw" if m.group("pw") is not None else "pw2"
        if group == "pw" and m.group("user").lower() in _ADDRESS_SCHEMES:
            continue
        if literal(m.group(group)):
            found.append(Leak("a password in an address", *m.span(group)))
    found += _token_leaks(text)
    found += _assigned_leaks(text, allowed)
    return sorted(found, key=lambda leak: (leak.start, -leak.end))


def git_url_leaks(text: str) -> list[Leak]:
    """Credentials in a git remote, which takes them only from a Secret: any in
    `leaks`, and any user name at all in an http(s) or ftp URL."""
    strict = [
        leak
        for m in compiled(_URL).finditer(text)
        for leak in url_leaks(m.group(), m.start(), strict=True)
    ]
    return strict + leaks(text)


def _token_leaks(text: str) -> Iterator[Leak]:
    for token in find_tokens(text):
        yield Leak(token.what, token.masked, token.end)


def _assigned_leaks(text: str, allowed: Collection[str]) -> Iterator[Leak]:
    # The name first: nearly every `a=b` in a text names no secret, and a message
    # quoting 250,000 of them costs what each one's groups cost.
    for m in compiled(_ASSIGNED).finditer(text):
        name, value_group = m.group("name"), "value"
        if name is None:
            name, value_group = m.group("jname"), "jvalue"
            if name is None:
                name, value_group = m.group("fname"), "fvalue"
        if not secret_name(name) or name in allowed:
            continue
        if literal(m.group(value_group).strip("'\"")):
            yield Leak(f"a literal value for {name}", *m.span(value_group))


def url_leaks(url: str, offset: int = 0, *, strict: bool = False) -> Iterator[Leak]:
    """Credentials in one URL: a password (also after `%3A`, also holding `/`) or a token
    as its user, and secrets in its query or fragment. `strict` (a git remote, which
    takes credentials only from a Secret): any user name over http(s) or ftp too."""
    scheme, _, rest = url.partition("://")
    start = offset + len(scheme) + 3
    address = re.split(r"[?#]", rest, maxsplit=1)[0]
    user_info = _user_info(address)
    if user_info:
        yield from _user_info_leaks(user_info, start, scheme.lower(), strict=strict)
    at = len(address)
    for part in re.split(r"([?#&;])", rest[at:]):
        name, equals, value = part.partition("=")
        if equals and value and _query_secret(name) and literal(value):
            yield Leak(
                f"a credential in a URL query ({name})",
                start + at + len(name) + 1,
                start + at + len(part),
            )
        at += len(part)


def _user_info(address: str) -> str:
    host, _, path = address.partition("/")
    if "@" in host:
        return host[: host.rfind("@")]
    # A password holding `/` ends the host early: https://user:pa/ss@github.com/…
    if "@" in path and _has_colon(host) and not compiled(_PORT).fullmatch(host):
        return address[: address.index("@")]
    return ""


def _has_colon(text: str) -> bool:
    return ":" in text or "%3a" in text.lower()


def _user_info_leaks(
    user_info: str, start: int, scheme: str, *, strict: bool
) -> Iterator[Leak]:
    colon = user_info.find(":")
    encoded = user_info.lower().find("%3a")
    if colon < 0 or 0 <= encoded < colon:
        colon, width = encoded, 3
    else:
        width = 1
    if colon >= 0:
        password = user_info[colon + width :]
        if password and literal(password):
            yield Leak(
                "a password in a URL", start + colon + width, start + len(user_info)
            )
        return
    if _token_like(user_info) or (
        strict and scheme in ("http", "https", "ftp", "ftps")
    ):
        yield Leak("a token as a URL's user", start, start + len(user_info))


def _token_like(user: str) -> bool:
    if any(t.start == 0 and t.end == len(user) for t in find_tokens(user)):
        return True
    return bool(
        compiled(_TOKEN_LIKE).fullmatch(user)
        and any(c.isdigit() for c in user)
        and any(c.isalpha() for c in user)
    )


def _query_secret(name: str) -> bool:
    lowered = name.lower()
    return secret_name(name) or lowered.endswith(("sig", "signature"))


def literal(value: str) -> bool:
    """Whether `value` is a credential written out, rather than nothing, a reference
    (`$(VAR)`, `${VAR}`, `$VAR`), a template or a path to a mounted file."""
    return bool(
        value
        and not value.startswith("$")
        and not (value.startswith("{{") and value.endswith("}}"))
        and not compiled(_PLAIN_PATH).fullmatch(value)
        and value.lower() not in _NOT_LITERALS
    )


def mask(text: str) -> str:
    """`text` with every credential in it replaced by `***`, keeping what says what it
    was: `https://bot:***@github.com/…`, `ghp_***`, `password=***`."""
    found = leaks(text)
    if not found:
        return text
    out, at = [], 0
    for leak in found:
        if leak.end <= at:
            continue
        start = max(leak.start, at)
        out.append(text[at:start] + "***")
        at = leak.end
    out.append(text[at:])
    return "".join(out)
