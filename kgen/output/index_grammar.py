"""What a line of `<output>/.kgen-index` may be, and why a line is not.

An entry is `<output>/`, then components of letters, digits, '.', '_' and '-' (never '.'
or '..' alone, never empty), then optionally a space and a job's fingerprint. Comments
start with '#'. One expression decides for the whole text; only when it refuses are
the lines looked at one by one, to say which and why.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import replace

from kgen.errors import Problem, masked

INDEX = ".kgen-index"
HEADER = "# Files kgen generated here; kgen removes them when no job produces them.\n"

# A component starts with a character other than '.', or with '.' and one other than
# '.', or with '..' and anything more: so never '.' or '..' alone.
_PART = r"(?>\.\.[A-Za-z0-9._-]|\.[A-Za-z0-9_-]|[A-Za-z0-9_-])[A-Za-z0-9._-]*+"
_MARK = r"[a-z][a-z0-9-]*+:[0-9a-f]{8,64}+"
# Possessive and atomic: 3 ms for the 12,000 lines of a 1,000-job project.
_PATH = r"{prefix}(?:/" + _PART + r")++"
_ENTRY = _PATH + r"(?: " + _MARK + r")?+"
_TEXT = r"(?:" + _ENTRY + r"\n|#[^\n]*+\n|\n)*+"
_LINE = _ENTRY + r"|#.*|"
_MARK_ONLY = re.compile(_MARK)
_MAX_REPORTED = 10


def index_path(output: str) -> str:
    return f"{output}/{INDEX}"


def split_line(line: str, output: str) -> tuple[str, str]:
    """A line's path and fingerprint; the output root's own name may hold spaces."""
    cut = len(output) if line.startswith(output + "/") else 0
    path, _, mark = line[cut:].partition(" ")
    # One string a path (kgen.output.tree).
    return sys.intern(line[:cut] + path), mark


@functools.lru_cache(maxsize=4)
def text_pattern(output: str) -> re.Pattern[str]:
    return re.compile(_TEXT.replace("{prefix}", re.escape(output)))


@functools.lru_cache(maxsize=4)
def path_pattern(output: str) -> re.Pattern[str]:
    return re.compile(_PATH.replace("{prefix}", re.escape(output)))


@functools.lru_cache(maxsize=4)
def _line_pattern(output: str) -> re.Pattern[str]:
    return re.compile(_LINE.replace("{prefix}", re.escape(output)))


def bad_lines(text: str, output: str) -> list[Problem]:
    """A problem at each line the index may not have (the first few of them)."""
    index = index_path(output)
    pattern = _line_pattern(output)
    problems = []
    for number, line in enumerate(text[:-1].split("\n"), 1):
        if pattern.fullmatch(line) is None:
            why, column = _why(line, output)
            problems.append(_bad_entry(index, number, column, line, why, output))
    if len(problems) > _MAX_REPORTED:
        last = problems[_MAX_REPORTED - 1]
        more = len(problems) - _MAX_REPORTED
        problems[_MAX_REPORTED - 1 :] = [
            replace(
                last,
                message=f"{last.message}; {more} more lines after this one are"
                " not entries kgen writes either",
            )
        ]
    return problems


def _why(line: str, output: str) -> tuple[str, int]:
    """Why a line is not an entry kgen writes, and the column where that shows."""
    for at, char in enumerate(line):
        if not char.isprintable():
            return "it holds a control character", at + 1
    path, mark = split_line(line, output)
    parts = path.split("/")
    if path.startswith("/"):
        return "it is an absolute path", 1
    if ".." in parts:
        return "it climbs out with '..'", _column(parts, parts.index("..")) + 1
    if not path.startswith(output + "/"):
        return f"it is not inside the output folder {output}/", 1
    inside = len(output.split("/"))
    for at, part in enumerate(parts[inside:], inside):
        why = _bad_part(part)
        if why:
            return why, _column(parts, at) + 1
    if len(path) < len(line) and not _MARK_ONLY.fullmatch(mark):
        return "its fingerprint is not <scheme>:<hex digits>", len(path) + 2
    return "it is not a path kgen writes", 1  # pragma: no cover - one of the above


def _bad_part(part: str) -> str | None:
    if not part:
        return "it has an empty path component"
    if part == ".":
        return "it has a '.' path component"
    if "\\" in part:
        return "it has a backslash"
    if re.fullmatch(_PART, part) is None:
        return "it has a character kgen never writes in a file name"
    return None


def _column(parts: list[str], at: int) -> int:
    return sum(len(p) + 1 for p in parts[:at])


def _bad_entry(
    index: str, line: int, column: int, text: str, why: str, output: str
) -> Problem:
    # Masked before it is cut: a URL cut before its '@' no longer reads as one, and
    # its password would be shown.
    shown = masked(text)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return Problem(
        f"the index lists '{shown}', which kgen cannot have written: {why};"
        f" kgen reads and removes only files it wrote inside {output}/",
        "io",
        file=index,
        line=line,
        column=column,
        hint=_restore(index),
    )


def damaged(index: str, why: str) -> Problem:
    # Which files kgen may replace or remove comes from the index: never guess it.
    return Problem(
        f"kgen's index of the files it wrote is damaged; {why}",
        "io",
        file=index,
        hint=_restore(index),
    )


def _restore(index: str) -> str:
    return f"restore it from git (git checkout -- {index}), then run kgen again"
