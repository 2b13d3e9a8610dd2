"""What the loader says when it refuses a file: each refusal a Problem at the place it
is about, raised inside the loader as a LoadError and returned to its callers."""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml.error import MarkedYAMLError

from kgen.errors import Problem


class LoadError(Exception):
    """The one problem that stops loading a document."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def at_mark(
    mark: Any,
    file: str,
    message: str,
    *,
    hint: str | None = None,
    code: str = "yaml-syntax",
) -> Problem:
    """A problem at a parser mark (0-based line and column)."""
    return Problem(
        message, code, file=file, line=mark.line + 1, column=mark.column + 1, hint=hint
    )


def from_yaml_error(exc: MarkedYAMLError, display: str, text: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    problem = (exc.problem or exc.context or "invalid YAML").strip()
    hint = None
    if "another document" in problem:
        problem = "more than one YAML document in this file"
        hint = "keep one job, overlay or project per file; remove the '---' separator"
    elif mark is not None and char_at(text, mark.line, mark.column) == "\t":
        hint = "YAML does not allow tabs for indentation; use spaces"
    elif problem == "mapping values are not allowed in this context":
        # A key indented under the line above (`  image: x` after `framework: x`)
        # continues that value, as does a `: ` in an unquoted value.
        hint = (
            "a key cannot start inside a value: if this line starts a key, indent it"
            " as the key above it; if the ': ' is part of the value, quote the value"
        )
    elif exc.context and exc.context_mark is not None:
        start = exc.context_mark
        at = f"line {start.line + 1}, column {start.column + 1}"
        hint = f"{exc.context.strip()} that starts at {at}"
        if "block mapping" in exc.context:
            hint = (
                f"check the indentation: the keys of the mapping that starts at {at}"
                f" all start at column {start.column + 1}, and what belongs under a"
                " key is indented further"
            )
        elif "block collection" in exc.context:
            hint = (
                f"check the indentation: each item of the list that starts at {at}"
                f" starts with '-' at column {start.column + 1}, and an item's keys"
                " line up after its '- '"
            )
        if problem == "found unexpected ':'" and "plain scalar" in exc.context:
            # `{image: x.io/y:1}`: in flow style a ':' ends an unquoted value. The
            # value itself is not quoted here: it may be a secret's.
            hint = (
                f'quote the value that starts at {at}, e.g. {{image: "x.io/y:1"}}:'
                " inside {...} or [...] a ':' in an unquoted value is an error"
            )
    return Problem(
        problem,
        "yaml-syntax",
        file=display,
        line=mark.line + 1 if mark else 1,
        column=mark.column + 1 if mark else 1,
        hint=hint,
    )


def char_at(text: str, line: int, column: int) -> str:
    lines = text.split("\n", line + 1)
    return lines[line][column : column + 1] if line < len(lines) else ""


def bad_character(display: str, text: str, position: int, character: Any) -> Problem:
    line, column = text_line_col(text, position)
    code = character if isinstance(character, int) else 0
    return Problem(
        f"character U+{code:04X} is not allowed in YAML",
        "yaml-syntax",
        file=display,
        line=line,
        column=column,
        hint="remove it; write control characters as escapes in double quotes (\\t, \\x07)",
    )


def too_deep(display: str, line: int, column: int, limit: int) -> Problem:
    return Problem(
        f"structure is nested more than {limit} levels deep",
        "yaml-too-deep",
        file=display,
        line=line,
        column=column,
    )


# Byte order marks by the encoding they start; UTF-32's first, as UTF-32LE's begins
# with UTF-16LE's.
_BOMS = (
    ("UTF-32", (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")),
    ("UTF-16", (b"\xff\xfe", b"\xfe\xff")),
)


def other_encoding(raw: bytes) -> str | None:
    """The encoding a byte order mark at the start of `raw` says, if not UTF-8's."""
    return next((name for name, marks in _BOMS if raw.startswith(marks)), None)


def not_utf8(display: str, raw: bytes, offset: int) -> Problem:
    encoding = other_encoding(raw)
    if encoding is not None:
        return Problem(
            f"file is {encoding}; kgen reads UTF-8",
            "yaml-encoding",
            file=display,
            line=1,
            column=1,
            hint="save the file as UTF-8",
        )
    before = raw[:offset]
    line = before.count(b"\n") + 1
    column = len(before) - (before.rfind(b"\n") + 1) + 1
    return Problem(
        f"file is not valid UTF-8 (byte 0x{raw[offset]:02x})",
        "yaml-encoding",
        file=display,
        line=line,
        column=column,
        hint="save the file as UTF-8",
    )


def directive(display: str, text: str, name: str, version: Any) -> Problem:
    """A %YAML directive other than 1.2, or a %TAG directive, at its line."""
    found = re.search(rf"(?m)^%{name}\b", text)
    line, column = text_line_col(text, found.start() if found else 0)
    if name == "TAG":
        message = "%TAG directives are not supported"
        hint = "kgen reads plain YAML: remove the %TAG line and the tags that use it"
    else:
        shown = ".".join(str(part) for part in version)
        message = f"this file declares YAML {shown}; kgen reads YAML 1.2 only"
        hint = (
            "remove the %YAML line, and check the values YAML 1.1 reads otherwise:"
            " there 010 is 8 and yes, no, on and off are booleans; quote text"
        )
    return Problem(
        message, "yaml-syntax", file=display, line=line, column=column, hint=hint
    )


def other_line_break(display: str, text: str, position: int) -> Problem:
    """A line break YAML knows and git does not (a lone CR, NEL, U+2028, U+2029)."""
    line, column = text_line_col(text, position)
    return Problem(
        f"character U+{ord(text[position]):04X} is a line break to YAML but not to git"
        " or an editor; kgen's line numbers would be wrong past it",
        "yaml-syntax",
        file=display,
        line=line,
        column=column,
        hint="remove it, or end lines with LF (or CR LF); in a double-quoted string"
        " write it as an escape (\\u2028)",
    )


def text_line_col(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1
