"""Whether a name (an env variable, a flag, a rendezvous option, a URL query parameter, a
key in `NAME=value` text) says that its value is a credential.

Names are split into words (`GH_PAT`, `apiKey`, `--hf-token`, `keyStorePassword`), so
`AUTHOR`, `KEYBOARD_LAYOUT`, `TOKENIZER` and `MAX_TOKENS` are not secrets. A word that
names the secret counts unless a later word makes the name about something else
(`TOKEN_TTL`, `PASSWORD_FILE`, `SECRET_NAME`, `AWS_ACCESS_KEY_ID`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import Any

_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# The secret, wherever it stands: DB_PASSWORD, PASSWORD_DB, HF_TOKEN, CLIENT_SECRET.
_ANYWHERE = _words(
    "password passwd passphrase passcode pwd secret secrets token credential"
    " credentials creds apikey cookie"
)
# Secret only at the end, or before words that say it is the content: CACHE_KEY,
# PRIVATE_KEY_PEM, GH_PAT, NPM_AUTH, SMTP_PASS; not KEY_ID, PAT_EXPIRY, AUTH_MODE.
_AT_END = _words("key pat auth pass")
_CONTENT = _words(
    "pem data b64 base64 json content contents value raw hex material text str string"
    " blob bytes der pkcs8 pkcs12 p12"
)
# Words after the secret that make the name about something else.
_ABOUT = _words(
    "ttl seconds secs sec ms minutes hours days expiry expires expiration lifetime"
    " timeout age interval period url uri endpoint host hostname port path paths file"
    " filename files dir directory folder mount location name names id ids type types"
    " kind length len size count limit max min enabled enable disabled disable required"
    " header field prefix suffix format mode method version env var ref provider server"
    " audience issuer scope scopes algorithm alg policy strategy rotation store backend"
    " source template pattern regex rule rules flag option options"
)
# Language-model vocabulary, not credentials: --pad-token, eos_token, decoder_start_token.
_TOKEN_KINDS = _words(
    "pad eos bos unk sep cls mask start end stop special additional sos eot image"
    " audio video vision think tool chat fim prefix suffix middle added new num max min"
    " n ignore default"
)
# Glued words that still name the secret: HTPASSWD, DBPASSWORD, APIKEY, SECRETKEY.
_GLUED = (
    "password",
    "passwd",
    "passphrase",
    "credential",
    "apikey",
    "secretkey",
    "accesskey",
    "privatekey",
    "accesstoken",
    "authtoken",
)
# The shell's working directories (a connection string's `Pwd=` is a password).
_NOT_SECRETS = frozenset({"PWD", "OLDPWD"})


# Every secret word holds one of these: most names hold none (a quick no).
_STEMS = ("pas", "pwd", "secret", "token", "cred", "key", "pat", "auth", "cookie")


@functools.lru_cache(maxsize=4096)
def secret_name(name: str) -> bool:
    """Whether `name` says its value is a credential."""
    lowered = name.lower()
    if not any(stem in lowered for stem in _STEMS):
        return False
    words = [w.lower() for w in _WORDS.findall(name)]
    if not words or name in _NOT_SECRETS:
        return False
    for index, word in enumerate(words):
        after = words[index + 1 :]
        if word in _AT_END:
            if all(w in _CONTENT or w.isdigit() for w in after):
                return True
        elif word in _ANYWHERE or any(glued in word for glued in _GLUED):
            if word == "token" and index and words[index - 1] in _TOKEN_KINDS:
                continue
            if not any(w in _ABOUT for w in after):
                return True
    return False


# A value's own field says nothing when it is one of these: `value` takes its name from
# the `name` or `key` beside it, and a `name` or `key` is a name, not the secret.
_VALUE_FIELDS = frozenset(("value", "values"))
_NAMING_FIELDS = ("name", "key")


Path = tuple[str | int, ...]


def secret_place(
    path: Path,
    beside: Callable[[Path], object],
    chosen: Callable[[Path], bool] = lambda path: True,
) -> str | None:
    """The name saying the value at `path` is a credential, if one does: its own key
    (`labels: {db-password: …}`; of a qualified key, the part after its `/`), or the
    `name` or `key` beside it (`env: [{name: API_TOKEN, value: …}]`, `tolerations:
    [{key: password, value: …}]`, `matchExpressions: [{key: password, values: […]}]`).
    A list's items take their list's name, and an item after a flag named like a
    secret takes the flag's (`args: [--password, …]`). `beside(path)` is the value at
    a path; `chosen(path)` whether the key ending it is one a user chose, not a
    field's name."""
    flag = _flag_before(path, beside)
    if flag is not None:
        return flag
    end = len(path) - 1 if path and isinstance(path[-1], int) else len(path)
    field = path[end - 1] if end else None
    if not isinstance(field, str):
        return None
    if field in _VALUE_FIELDS:
        for naming in _NAMING_FIELDS:
            name = beside((*path[: end - 1], naming))
            if isinstance(name, str) and secret_name(name.rpartition("/")[2]):
                return name
        return None
    if (
        field not in _NAMING_FIELDS
        and secret_name(field.rpartition("/")[2])
        and chosen(path[:end])
    ):
        return field
    return None


def holds_secret(path: Path, beside: Callable[[Path], object]) -> bool:
    """Whether the value at `path` is under a secret's name or holds one, at any depth:
    a message that quotes a list or mapping whole (`{'password': ...} is not of type
    'string'`) quotes every value inside it."""
    # What the walk has seen, for the names beside each value: not looked up again.
    seen: dict[Path, object] = {}

    def look(place: Path) -> object:
        return seen[place] if place in seen else beside(place)

    stack = [(path, beside(path))]
    while stack:
        place, node = stack.pop()
        if secret_place(place, look) is not None:
            return True
        items: Iterable[tuple[Any, object]] = ()
        if isinstance(node, dict):
            items = node.items()
        elif isinstance(node, list):
            items = enumerate(node)
        for key, value in items:
            seen[(*place, key)] = value
            stack.append(((*place, key), value))
    return False


def _flag_before(path: Path, beside: Callable[[Path], object]) -> str | None:
    """The name of the flag before a list item (`--password` before its value), if
    it names a secret and the item is no flag itself."""
    if not path or not isinstance(path[-1], int) or path[-1] < 1:
        return None
    flag = beside((*path[:-1], path[-1] - 1))
    if not isinstance(flag, str) or not flag.startswith("-"):
        return None
    value = beside(path)
    name = flag.lstrip("-")
    if isinstance(value, str) and value.startswith("-"):
        return None
    if name and _FLAG_NAME.fullmatch(name) and secret_name(name):
        return name
    return None


_FLAG_NAME = re.compile(r"[A-Za-z][\w.-]*")
