"""`<output>/.kgen-index`: the files kgen wrote, which it alone may replace or remove.

The index is input a pull request can edit, and what it names is read (`kgen diff`) and
removed (`kgen build`). So it may only name regular files inside the output root, as
kgen writes them: `<output>/` then normalised components of letters, digits, '.', '_'
and '-' (no '..', no '.', no empty one), then optionally a space and a job's
fingerprint. A line that is anything else stops every command that reads the index, at
`<output>/.kgen-index:LINE`, before a file is read or written. One expression over the
whole text decides, for a full read and for a lookup of a few paths alike, so both
accept exactly the same indexes.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

from kgen.errors import KgenError, Problem
from kgen.safe_paths import Refused, Unread, open_folder, open_root, read_file

INDEX = ".kgen-index"
_HEADER = "# Files kgen generated here; kgen removes them when no job produces them.\n"

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
# The index of 400,000 files: a hostile one larger than this is not read at all.
MAX_INDEX_BYTES = 32 * 1024 * 1024
_MAX_REPORTED = 10


@dataclass(frozen=True)
class Index:
    """Owned paths, each with its job's fingerprint (None for other files), and the
    line each is on."""

    marks: dict[str, str | None]
    lines: dict[str, int]


def index_path(output: str) -> str:
    return f"{output}/{INDEX}"


def with_index(
    files: dict[str, str], output: str, *, fingerprints: dict[str, str] | None = None
) -> dict[str, str]:
    """`files` plus the index of what kgen owns; a job's line carries a fingerprint of
    its rendered spec, so a later run can tell a job changed without parsing YAML."""
    marks = fingerprints or {}
    listing = "".join(
        f"{path} {marks[path]}\n" if path in marks else f"{path}\n"
        for path in sorted(files)
    )
    return {**files, index_path(output): _HEADER + listing}


def read_index(root: Path, output: str) -> Index:
    """The whole index, checked; an empty one when there is none."""
    folder = _open_output(root, output)
    if folder is None:
        return Index({}, {})
    try:
        return index_in(folder, output)
    finally:
        os.close(folder)


def _open_output(root: Path, output: str) -> int | None:
    """The output root's descriptor, reached without links; None if there is none."""
    try:
        base = open_root(root)
    except OSError as exc:
        raise KgenError(
            _damaged(index_path(output), f"cannot read it: {exc.strerror}")
        ) from None
    try:
        return open_folder(base, output)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except Refused as exc:
        raise KgenError(refused_folder(exc, output)) from None
    except OSError as exc:
        raise KgenError(
            _damaged(index_path(output), f"cannot read it: {exc.strerror}")
        ) from None
    finally:
        os.close(base)


def index_in(folder: int, output: str) -> Index:
    """The checked index of the output root open as `folder`."""
    text = _text(folder, output)
    if text is None:
        return Index({}, {})
    marks: dict[str, str | None] = {}
    lines: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), 1):
        if line and line[0] != "#":
            path, mark = _split(line, output)
            if path not in marks:  # the first line of a path counts, as in _lookup
                marks[path] = mark or None
                lines[path] = number
    return Index(marks, lines)


def _split(line: str, output: str) -> tuple[str, str]:
    """A line's path and fingerprint; the output root's own name may hold spaces."""
    cut = len(output) if line.startswith(output + "/") else 0
    path, _, mark = line[cut:].partition(" ")
    return line[:cut] + path, mark


def read_fingerprints(
    root: Path, output: str, *, only: Collection[str] | None = None
) -> dict[str, str | None]:
    """Owned paths, each with the fingerprint of its job spec when it is a job; with
    `only`, just those of these paths that are owned."""
    if only is None or len(only) > _FEW_LOOKUPS:
        marks = read_index(root, output).marks
        return marks if only is None else {p: marks[p] for p in only if p in marks}
    folder = _open_output(root, output)
    if folder is None:
        return {}
    try:
        text = _text(folder, output)
    finally:
        os.close(folder)
    if text is None:
        return {}
    lines = "\n" + text  # so that the first line starts after a line break too
    found = {path: _lookup(lines, path) for path in only if _is_entry(path, output)}
    return {path: mark for path, (owned, mark) in found.items() if owned}


# A one-spec validate wants 4 of 12,000 lines: finding them in the text beats splitting
# it (0.1 ms against 10 ms).
_FEW_LOOKUPS = 64


def _lookup(text: str, path: str) -> tuple[bool, str | None]:
    """Whether the checked index text (after a line break) has a line for `path`, and
    that line's fingerprint."""
    needle = f"\n{path}"
    at = text.find(needle)
    while at != -1:
        end = at + len(needle)
        line_end = text.find("\n", end)
        rest = text[end : None if line_end == -1 else line_end]
        if not rest or rest[0] == " ":
            return True, rest[1:] or None
        at = text.find(needle, end)
    return False, None


def _is_entry(path: str, output: str) -> bool:
    return _path_pattern(output).fullmatch(path) is not None


def _text(folder: int, output: str) -> str | None:
    """The index's text, with line ends read as `\\n`, once it is known to be sound;
    None when there is no index."""
    index = index_path(output)
    try:
        data = read_file(folder, INDEX, index, limit=MAX_INDEX_BYTES)
    except Refused as exc:
        raise KgenError(_damaged(index, f"it is {exc.kind}, not a file")) from None
    except OSError as exc:
        raise KgenError(_damaged(index, f"cannot read it: {exc.strerror}")) from None
    if data is None:
        return None
    if isinstance(data, Unread):
        why = f"it is {data.size:,} bytes; kgen writes about 80 bytes a file"
        raise KgenError(
            _damaged(index, f"{why}, and reads at most {MAX_INDEX_BYTES:,}")
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KgenError(
            _damaged(index, f"it is not UTF-8 text: {exc.reason}")
        ) from None
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if not text.endswith("\n"):
        text += "\n"
    if _text_pattern(output).fullmatch(text) is None:
        raise KgenError(*_bad_lines(text, output))
    return text


@functools.lru_cache(maxsize=4)
def _text_pattern(output: str) -> re.Pattern[str]:
    return re.compile(_TEXT.replace("{prefix}", re.escape(output)))


@functools.lru_cache(maxsize=4)
def _path_pattern(output: str) -> re.Pattern[str]:
    return re.compile(_PATH.replace("{prefix}", re.escape(output)))


@functools.lru_cache(maxsize=4)
def _line_pattern(output: str) -> re.Pattern[str]:
    return re.compile(_LINE.replace("{prefix}", re.escape(output)))


def _bad_lines(text: str, output: str) -> list[Problem]:
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
    path, mark = _split(line, output)
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
    shown = text if len(text) <= 80 else text[:77] + "..."
    return Problem(
        f"the index lists '{shown}', which kgen cannot have written: {why};"
        f" kgen reads and removes only files it wrote inside {output}/",
        "io",
        file=index,
        line=line,
        column=column,
        hint=_restore(index),
    )


def _damaged(index: str, why: str) -> Problem:
    # Which files kgen may replace or remove comes from the index: never guess it.
    return Problem(
        f"kgen's index of the files it wrote is damaged; {why}",
        "io",
        file=index,
        hint=_restore(index),
    )


def _restore(index: str) -> str:
    return f"restore it from git (git checkout -- {index}), then run kgen again"


def refused_folder(exc: Refused, output: str) -> Problem:
    """The problem of an output root that is, or lies below, a link or a non-folder."""
    if exc.path == output and exc.kind == "a symbolic link":
        return Problem(
            f"the output folder {output} is a symbolic link; kgen writes only real folders",
            "io",
            file=output,
        )
    if exc.path == output:
        message = f"the output folder {output} is {exc.kind}, not a folder"
    else:
        message = (
            f"{exc.path} is {exc.kind}; the output folder {output} must be reached"
            " through real folders inside the project"
        )
    return Problem(
        message,
        "io",
        file=exc.path,
        hint="replace it with a real folder, or choose another output in kgen.yaml",
    )
