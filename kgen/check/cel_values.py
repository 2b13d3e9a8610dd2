"""The values of the Kubernetes CEL libraries for URLs and quantities
(kubernetes/apiserver pkg/cel/library urls.go and quantity.go, v1.31): a URL or a
quantity is a map with one private key, which only these functions read.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from kgen.spec.quantity import parse_quantity

_QUANTITY_KEY = "__kgen_quantity__"
_URL_KEY = "__kgen_url__"


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"no such overload for {type(value).__name__}")
    return value


def url(s: Any) -> dict[str, str]:
    s = _string(s)
    if not isURL(s):
        raise ValueError(f"URL parse error during conversion from string: {s}")
    return {_URL_KEY: s}


def isURL(s: Any) -> bool:
    # Go's url.ParseRequestURI: an absolute URL or an absolute path, no fragment.
    s = _string(s)
    if "#" in s or not s or " " in s:
        return False
    if s.startswith("/"):
        return True
    parts = urlsplit(s)
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", parts.scheme or "-"))


def _url(value: Any) -> Any:
    if not isinstance(value, dict) or _URL_KEY not in value:
        raise TypeError("no such overload: not a URL")
    return urlsplit(value[_URL_KEY])


def getScheme(u: Any) -> str:
    return str(_url(u).scheme)


def getHost(u: Any) -> str:
    return str(_url(u).netloc.rpartition("@")[2])


def getHostname(u: Any) -> str:
    host = getHost(u)
    if host.startswith("["):
        return host[1 : host.find("]")]
    return host.rpartition(":")[0] if ":" in host else host


def getPort(u: Any) -> str:
    host = getHost(u)
    tail = host.rpartition("]")[2] if host.startswith("[") else host
    return tail.rpartition(":")[2] if ":" in tail else ""


def getEscapedPath(u: Any) -> str:
    return str(_url(u).path)


def getQuery(u: Any) -> dict[str, list[str]]:
    from urllib.parse import parse_qs

    return {k: list(v) for k, v in parse_qs(_url(u).query).items()}


def quantity(s: Any) -> dict[str, str]:
    if parse_quantity(_string(s)) is None:
        raise ValueError(f"quantities must match the regular expression: {s}")
    return {_QUANTITY_KEY: s}


def isQuantity(s: Any) -> bool:
    return isinstance(s, str) and parse_quantity(s) is not None


def _amount(value: Any) -> Decimal:
    if not isinstance(value, dict) or _QUANTITY_KEY not in value:
        raise TypeError("no such overload: not a quantity")
    amount = parse_quantity(value[_QUANTITY_KEY])
    assert amount is not None
    return amount


def isInteger(q: Any) -> bool:
    amount = _amount(q)
    return amount == amount.to_integral_value() and abs(amount) < 2**63


def asInteger(q: Any) -> int:
    if not isInteger(q):
        raise ValueError("cannot convert value to integer")
    return int(_amount(q))


def asApproximateFloat(q: Any) -> float:
    return float(_amount(q))


def sign(q: Any) -> int:
    amount = _amount(q)
    return (amount > 0) - (amount < 0)


def isGreaterThan(q: Any, other: Any) -> bool:
    return _amount(q) > _amount(other)


def isLessThan(q: Any, other: Any) -> bool:
    return _amount(q) < _amount(other)


def compareTo(q: Any, other: Any) -> int:
    a, b = _amount(q), _amount(other)
    return (a > b) - (a < b)


def _quantity_of(amount: Decimal) -> dict[str, str]:
    return {_QUANTITY_KEY: format(amount.normalize(), "f")}


def add(q: Any, other: Any) -> dict[str, str]:
    extra = Decimal(other) if isinstance(other, int) else _amount(other)
    return _quantity_of(_amount(q) + extra)


def sub(q: Any, other: Any) -> dict[str, str]:
    extra = Decimal(other) if isinstance(other, int) else _amount(other)
    return _quantity_of(_amount(q) - extra)


# Property names as a CEL rule spells them (kubernetes/apiserver pkg/cel/escaping.go):
# a name that is a CEL keyword is `__<name>__`, and `__`, `.`, `-`, `/` inside a name
# are `__underscores__`, `__dot__`, `__dash__`, `__slash__`.
_KEYWORDS = frozenset(
    [
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ]
)
_ESCAPES = (
    ("__", "__underscores__"),
    (".", "__dot__"),
    ("-", "__dash__"),
    ("/", "__slash__"),
)


def escaped_name(name: str) -> str:
    if name in _KEYWORDS:
        return f"__{name}__"
    for plain, escape in _ESCAPES:
        name = name.replace(plain, escape)
    return name


def with_escaped_names(value: Any) -> Any:
    """`value` with each property also under its escaped name, for a rule that uses
    escaped names (only such a rule pays for the copy)."""
    if isinstance(value, dict):
        out = {k: with_escaped_names(v) for k, v in value.items()}
        for key in value:
            if isinstance(key, str) and escaped_name(key) != key:
                out.setdefault(escaped_name(key), out[key])
        return out
    if isinstance(value, list):
        return [with_escaped_names(item) for item in value]
    return value
