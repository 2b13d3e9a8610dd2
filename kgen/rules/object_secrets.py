"""The secret rules over one string of a whole Kubernetes object (a team object in
resources/, or what a patch wrote into a rendered one), where kgen.rules.secrets reads
a job spec's fields: the same names and the same values.

A string is a secret written out when it sits under a secret's name
(kgen.rules.secret_names.secret_place: an env variable's `name`, a key its author
chose, the `key` beside a value) or after a flag named like one (`args: [--password,
…]`), and is a literal; or when it holds a credential, whatever its place
(kgen.rules.credentials)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, NamedTuple

from kgen.errors import DataPath, value_in
from kgen.rules.credentials import leaks, literal
from kgen.rules.secret_names import secret_place


class Found(NamedTuple):
    """What the string is (`a literal value for DB_PASSWORD`), and its rule's code."""

    code: str
    what: str
    # A literal under a secret's name, rather than a credential by its look.
    named: bool


def string_secret(
    body: Any,
    path: DataPath,
    allowed: Collection[str],
    *,
    chosen: Callable[[DataPath], bool],
    screen: bool = True,
) -> Found | None:
    """What the string at `path` of `body` is, if it is a secret written out; `chosen`
    says whether a key is one its author chose (kgen.check.declared), `screen` whether
    to look for credentials in it too (not where kgen.rules.secrets already did)."""
    value = value_in(body, path)
    if not isinstance(value, str) or not path:
        return None
    env = is_env_value(path)
    code = "secret-env-literal" if env else "secret-literal"
    # A value that is itself a credential is reported as what it is.
    found = leaks(value, allowed=allowed) if screen else []
    if found:
        return Found(code, found[0].what, named=False)
    name = _name(body, path, chosen)
    if name is not None and name not in allowed and literal(value):
        return Found(code, f"a literal value for {name}", named=True)
    return None


def _name(body: Any, path: DataPath, chosen: Callable[[DataPath], bool]) -> str | None:
    """The secret's name the value sits under, beside or after, if any; of a
    qualified key (`example.com/api-key`), the part after its `/`."""
    name = secret_place(path, lambda where: value_in(body, where), chosen)
    if name is None or is_env_value(path):
        return name
    return name.rpartition("/")[2]


def is_env_value(path: DataPath) -> bool:
    return len(path) >= 3 and path[-1] == "value" and path[-3] == "env"
