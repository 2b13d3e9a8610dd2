"""The Kubernetes CEL libraries a CRD rule may call, written for kgen's CEL runtime.

The API server adds to standard CEL the cel-go extended strings library and its own
libraries (kubernetes/apiserver pkg/cel/library, v1.31: lists.go, regex.go, urls.go,
quantity.go). kgen implements these here, with the same results for the inputs they
accept:

- strings: charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split,
  substring, trim, join, reverse
- lists: isSorted, sum, min, max, indexOf, lastIndexOf
- regex: find, findAll
- urls: url, isURL, getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery
- quantity: quantity, isQuantity, isInteger, asInteger, asApproximateFloat, sign,
  isGreaterThan, isLessThan, compareTo, add, sub

What the API server knows beyond these (ip, cidr, format, semver, authz, optionals) is
listed in UNSUPPORTED: a rule that calls one is skipped with a warning, never guessed.

A function never raises into the runtime (its library prints what a Python function
raises): it records the failure in `Failures`, which turns the evaluation into an error.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable
from itertools import pairwise
from typing import Any

from kgen.check.cel_values import (
    add,
    asApproximateFloat,
    asInteger,
    compareTo,
    getEscapedPath,
    getHost,
    getHostname,
    getPort,
    getQuery,
    getScheme,
    isGreaterThan,
    isInteger,
    isLessThan,
    isQuantity,
    isURL,
    quantity,
    sign,
    sub,
    url,
)

# What one rule may cost, as kgen.check.cel_runtime.MAX_COST (which imports this
# module): find and findAll's backtracking is held to it.
MAX_COST = 5_000_000
# What one function call may return: a rule like `s.replace('a', s)` in a comprehension
# would otherwise build strings of gigabytes.
MAX_RESULT = 1_000_000

UNSUPPORTED = frozenset(
    (
        "ip",
        "isIP",
        "cidr",
        "isCIDR",
        "format",
        "quote",
        "semver",
        "isSemver",
        "authorizer",
        "optional.of",
        "optional.none",
        "optional.ofNonZeroValue",
        "hasValue",
        "value",
        "orValue",
        "base64.encode",
        "base64.decode",
    )
)


class Failures:
    """What went wrong inside a function during one evaluation."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def __bool__(self) -> bool:
        return bool(self.messages)


def function(name: str, failures: Failures) -> Callable[..., Any]:
    """The function called `name`, recording its failures in `failures`."""
    implementation = _FUNCTIONS[name]

    def call(*args: Any) -> Any:
        try:
            out = implementation(*args)
        except Exception as exc:  # re.error too: the runtime would print it, unlocated
            failures.messages.append(f"{name}: {exc}")
            return None
        if isinstance(out, str | list) and len(out) > MAX_RESULT:
            failures.messages.append(f"{name}: result longer than {MAX_RESULT:,}")
            return None
        return out

    return call


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"no such overload for {type(value).__name__}")
    return value


def charAt(s: Any, i: int) -> str:
    text = _string(s)
    if not 0 <= i <= len(text):
        raise IndexError(f"index out of range: {i}")
    return text[i : i + 1]


def indexOf(s: Any, sub: Any, start: int = 0) -> int:
    if isinstance(s, list):
        return s.index(sub) if sub in s else -1
    text, part = _string(s), _string(sub)
    if not 0 <= start <= len(text):
        raise IndexError(f"index out of range: {start}")
    return text.find(part, start)


def lastIndexOf(s: Any, sub: Any, end: int | None = None) -> int:
    if isinstance(s, list):
        return len(s) - 1 - s[::-1].index(sub) if sub in s else -1
    text, part = _string(s), _string(sub)
    return text.rfind(part, 0, len(text) if end is None else end + len(part))


def lowerAscii(s: Any) -> str:
    return "".join(c.lower() if c.isascii() else c for c in _string(s))


def upperAscii(s: Any) -> str:
    return "".join(c.upper() if c.isascii() else c for c in _string(s))


def replace(s: Any, old: Any, new: Any, count: int = -1) -> str:
    text, old, new = _string(s), _string(old), _string(new)
    found = text.count(old)
    found = found if count < 0 else builtins.min(count, found)
    _at_most(len(text) + found * (len(new) - len(old)))  # before it is built
    return text.replace(old, new, count)


def _at_most(length: int) -> None:
    """Refuse a result longer than MAX_RESULT before building it: `s.replace('', s)`
    of a 20 KB value took 400 MB to be refused after."""
    if length > MAX_RESULT:
        raise ValueError(f"result longer than {MAX_RESULT:,}")


def split(s: Any, sep: Any, count: int = -1) -> list[str]:
    """Go's strings.SplitN, as cel-go's ext/strings.go calls it: on '' the characters,
    the last holding the rest when `count` stops short."""
    if count == 0:
        return []
    text, separator = _string(s), _string(sep)
    if separator:
        return text.split(separator, count - 1 if count > 0 else -1)
    if 0 < count < len(text):
        return [*text[: count - 1], text[count - 1 :]]
    return list(text)


def substring(s: Any, start: int, end: int | None = None) -> str:
    text = _string(s)
    end = len(text) if end is None else end
    if not 0 <= start <= end <= len(text):
        raise IndexError(f"substring range [{start}, {end}) out of range")
    return text[start:end]


def trim(s: Any) -> str:
    return _string(s).strip()


def join(items: Any, sep: str = "") -> str:
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise TypeError("join needs a list of strings")
    _at_most(builtins.sum(map(len, items)) + len(_string(sep)) * len(items))
    return sep.join(items)


def reverse(s: Any) -> str:
    return _string(s)[::-1]


def isSorted(items: Any) -> bool:
    return all(a <= b for a, b in pairwise(items))


def sum(items: Any) -> Any:
    total: Any = 0
    for item in items:
        total += item
    return total


def min(items: Any) -> Any:
    if not items:
        raise ValueError("min of an empty list")
    return sorted(items)[0]


def max(items: Any) -> Any:
    if not items:
        raise ValueError("max of an empty list")
    return sorted(items)[-1]


def find(s: Any, pattern: str) -> str:
    found = re.search(_linear(pattern, _string(s)), s)
    return found.group(0) if found else ""


def findAll(s: Any, pattern: str, limit: int = -1) -> list[str]:
    out = [m.group(0) for m in re.finditer(_linear(pattern, _string(s)), s)]
    return out if limit < 0 else out[:limit]


# Python's re backtracks; the API server's RE2 does not. A pattern with what makes
# backtracking explode (backreferences, nested repetition) is refused here; `matches`
# itself runs on the runtime's own linear-time engine.
_NESTED = re.compile(r"[*+}]\)*[*+{?]|\)[*+{]")


def _linear(pattern: str, text: str) -> str:
    """`pattern` if Python's re runs it on `text` within the cost a rule may have.
    Backtracking tries each quantifier's choices at each start: up to the text's
    length to the power of the quantifiers, plus one (`a*a*a*a*a*b` on 3,000 `a`s
    ran for minutes), so that is the estimate."""
    if "\\" in pattern and re.search(r"\\[1-9]", pattern):
        raise ValueError("backreferences are not RE2")
    if len(pattern) > 1000 or _NESTED.search(pattern):
        raise ValueError("kgen evaluates find/findAll only for simple patterns")
    quantifiers = sum(pattern.count(q) for q in "*+?{")
    if (len(text) + 1) ** (quantifiers + 1) > MAX_COST:
        raise ValueError(
            f"kgen evaluates find/findAll with {quantifiers} quantifiers only on a"
            " shorter value: Python's regular expressions backtrack, RE2 does not"
        )
    return pattern


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    fn.__name__: fn
    for fn in (
        charAt,
        indexOf,
        lastIndexOf,
        lowerAscii,
        upperAscii,
        replace,
        split,
        substring,
        trim,
        join,
        reverse,
        isSorted,
        sum,
        min,
        max,
        find,
        findAll,
        url,
        isURL,
        getScheme,
        getHost,
        getHostname,
        getPort,
        getEscapedPath,
        getQuery,
        quantity,
        isQuantity,
        isInteger,
        asInteger,
        asApproximateFloat,
        sign,
        isGreaterThan,
        isLessThan,
        compareTo,
        add,
        sub,
    )
}
SUPPORTED = frozenset(_FUNCTIONS)
