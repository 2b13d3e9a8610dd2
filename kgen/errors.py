"""One problem record for everything kgen reports, and the fatal error that carries it.

Problems in user input are values: stages return them, the pipeline collects, locates,
de-duplicates and sorts them, and a reporter prints them. Only conditions that stop a run
(an unreadable project file, an internal bug) are raised.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from kgen.flow_style import flow_style

Severity = Literal["error", "warning"]
DataPath = tuple[str | int, ...]

# Control characters from user input (a value, a file name) would reach terminals and CI
# logs raw: an escape sequence could repaint the screen, a newline fake a problem line,
# a bidirectional override reorder what the reader sees.


# Characters Python calls printable that show as nothing (Unicode's default-ignorable
# ones of categories Mn and Lo: fillers, variation selectors, the grapheme joiner): a
# value holding one would look like another.
_INVISIBLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0"
    "\U000e0100-\U000e01ef]"
)


def shows_as_is(text: str) -> bool:
    """Whether `text` holds no character `printable` escapes."""
    return text.isprintable() and _INVISIBLE.search(text) is None


def printable(text: str) -> str:
    """`text` with every unprintable or invisible character (newlines too, bidi
    controls) as a \\x, \\u or \\U escape, each one a YAML double-quoted string (and
    Python) reads back as the same character."""
    if shows_as_is(text):
        return text
    return "".join(
        c if c.isprintable() and not _INVISIBLE.match(c) else _escape(c) for c in text
    )


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    # Past U+FFFF, eight digits: `\ue0041` is no escape, and YAML reads `\ue004` + `1`.
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# A usage message quotes what was typed: a 100 KB argument is not repeated whole.
MAX_QUOTED_RUN = 256
MAX_USAGE_MESSAGE = 4000
_LONG_RUN = re.compile(rf"\S{{{MAX_QUOTED_RUN + 1},}}")


def capped(message: str) -> str:
    """`message` with each run of more than MAX_QUOTED_RUN characters without a space
    cut to that many and `...`, and the whole to MAX_USAGE_MESSAGE; mask and escape
    first (a password cut short is no longer recognised as one)."""
    cut = _LONG_RUN.sub(lambda m: m.group()[:MAX_QUOTED_RUN] + "...", message)
    if len(cut) > MAX_USAGE_MESSAGE:
        cut = cut[:MAX_USAGE_MESSAGE] + "..."
    return cut


# A problem quotes a word (a key, a value without spaces) at most this long.
MAX_QUOTED_WORD = 1024
_LONG_WORD = re.compile(rf"[^\s']{{{MAX_QUOTED_WORD + 1},}}")


def _cut_word(match: re.Match[str]) -> str:
    cut = match.group()[:MAX_QUOTED_WORD]
    if cut.endswith("*") and match.group()[MAX_QUOTED_WORD] == "*":
        cut = cut.rstrip("*") + "***"  # a mask stays whole (as in `shortened`)
    return cut + "..."


def usage_text(message: str) -> str:
    """A usage error's or note's message as printed: masked, escaped, then capped."""
    return capped(printable(masked(message)))


def masked(text: str) -> str:
    """`text` with every credential in it (a URL's password, a known token format, a
    private key, `password=…`) replaced by `***`: messages quote values, and every
    format kgen writes (text, json, sarif, github, junit) ends in a CI log.

    Once per distinct text: the same problem comes back from every environment that
    renders the job, and is copied as it is located and classified; masking a message
    that quotes 240 KB of `a=b` takes a second."""
    found = _MASKED.get(text)
    if found is None:
        # Imported on first use: a run without problems never needs the patterns.
        from kgen.rules.credentials import mask

        found = mask(text)
        _remember(text, found)
    return found


# Masked texts by text, up to a few megabytes of them (then forgotten, and rebuilt).
_MASKED: dict[str, str] = {}
_MASKED_CHARS = [0]
_MAX_MASKED_CHARS = 8 * 1024 * 1024


def _remember(text: str, clean: str) -> None:
    _MASKED_CHARS[0] += len(text) + len(clean)
    if _MASKED_CHARS[0] > _MAX_MASKED_CHARS:
        _MASKED.clear()
        _MASKED_CHARS[0] = len(text) + len(clean)
    _MASKED[text] = clean
    _MASKED[clean] = clean  # a masked text comes back as problems are copied


def shortened(text: str, limit: int) -> str:
    """`text` to quote in a message: masked, then cut to `limit` characters and `...`.
    In that order: a password cut short is no longer recognised as one (a URL without
    its `@host`, a token shorter than its format), and would be shown in clear."""
    clean = masked(text)
    if len(clean) <= limit:
        return clean
    cut = clean[:limit]
    # Never end in part of a mask: `***` stays whole, so it reads as one.
    if cut.endswith("*") and clean[limit] == "*":
        cut = cut.rstrip("*") + "***"
    return cut + "..."


def unquoted(message: str, value: Any) -> str:
    """`message` with `value` (a secret by its name) as `***` wherever it is quoted or
    stands whole: as written, as Python, JSON or YAML's flow style quotes it. A list or mapping (a wrong
    type under a secret's name) is hidden whole, and so is every value inside it."""
    if isinstance(value, list | dict):
        return _unquoted_all(message, value)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return message
    forms = [repr(value), json.dumps(value), flow_style(value)]
    # Bare only if it cannot be a word of the message itself ("a", "is"); inside a
    # quoted list or mapping, as flow style writes it there (`'it''s'`).
    forms += [str(value)] if not isinstance(value, str) or len(value) > 3 else []
    inside = flow_style([value])[1:-1]
    forms += [inside] if inside != str(value) else []
    for form in dict.fromkeys(forms):
        if form:
            message = re.sub(rf"(?<!\w){re.escape(form)}(?!\w)", "***", message)
    return message


def _unquoted_all(message: str, value: list[Any] | dict[Any, Any]) -> str:
    # The whole first, as jsonschema quotes it (`['x'] is not of type 'string'`), then
    # each value inside, wherever a message quotes one alone.
    for form in (repr(value), json.dumps(value, default=str), flow_style(value)):
        message = message.replace(form, "***")
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack += node.values()
        elif isinstance(node, list):
            stack += node
        else:
            message = unquoted(message, node)
    return message


def readable(text: str) -> str:
    """`text` as a problem's message shows it: masked, escaped, and a run too long to
    read (a 100 KB key) cut short, in that order; `text` itself when nothing changes."""
    clean = masked(text)
    if not shows_as_is(clean):
        clean = printable(clean)
    if len(clean) > MAX_QUOTED_WORD:
        clean = _LONG_WORD.sub(_cut_word, clean)
    return clean


def shown_path(path: DataPath) -> str:
    """A data path as every output format shows it (json's `field`), read as the
    message that names the same key is: never a raw bidi override or a 100 KB key."""
    return readable(format_path(path))


@dataclass(frozen=True)
class Problem:
    """What is wrong, where (1-based line and column), and how to fix it."""

    message: str
    code: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    hint: str | None = None
    severity: Severity = "error"
    # Where in the spec data the problem sits; the pipeline turns it into a line.
    path: DataPath = ()
    # Point at the key rather than its value (unknown or missing keys).
    at_key: bool = False
    # Extra context, e.g. the environment or the output object the problem was found in.
    context: str | None = None

    @property
    def location(self) -> str:
        parts = [self.file or "<unknown>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (
            self.file or "",
            self.line or 0,
            self.column or 0,
            self.code,
            self.message,
        )

    def __post_init__(self) -> None:
        # The one place every message's quoted values pass: masked, escaped, and a
        # run too long to read (a 100 KB key) cut short, in that order.
        for name in ("message", "file", "hint", "context"):
            value = getattr(self, name)
            if value is None:
                continue
            clean = printable(value) if name == "file" else readable(value)
            if clean is not value:
                object.__setattr__(self, name, clean)

    def at(self, file: str, line: int, column: int) -> Problem:
        if self.file == file and self.line == line and self.column == column:
            return self
        return replace(self, file=file, line=line, column=column)

    def __str__(self) -> str:
        return f"{self.location}: {self.message} ({self.code})"


class KgenError(Exception):
    """A fatal condition: the run cannot go on. Carries the problems that explain it."""

    def __init__(self, *problems: Problem) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = list(problems)


def value_in(body: Any, path: DataPath) -> Any:
    """The value at `path` in `body` (a rendered object, a spec's data), or None."""
    for part in path:
        try:
            body = body[part]
        except (KeyError, IndexError, TypeError):
            return None
    return body


def format_path(path: DataPath) -> str:
    """`('roles', 'worker', 'replicas')` -> `roles.worker.replicas`; indexes as `[0]`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


class UsageError(Exception):
    """The command line names something that does not exist (exit code 2)."""
