"""`<output>/.kgen-index`: the files kgen wrote, which it alone may replace or remove.

The index is input a pull request can edit, and what it names is read (`kgen diff`) and
removed (`kgen build`). So it may only name regular files inside the output root, as
kgen writes them (kgen.output.index_grammar). A line that is anything else stops every command
that reads the index, at `<output>/.kgen-index:LINE`, before a file is read or written.
One expression over the whole text decides, for a full read and for a lookup of a few
paths alike, so both accept exactly the same indexes. The index and the folders to it
are opened without following links, and only a regular file is read.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import NamedTuple, TypeVar

from kgen.descriptors import out_of_descriptors
from kgen.errors import KgenError
from kgen.output.index_grammar import (
    HEADER,
    INDEX,
    bad_lines,
    damaged,
    index_path,
    path_pattern,
    split_line,
    text_pattern,
)
from kgen.output.safe_paths import Refused, Unread, open_folder, open_root, read_file
from kgen.output.tree_problems import refused_folder

__all__ = [
    "INDEX",
    "Index",
    "index_path",
    "read_fingerprints",
    "read_index",
    "scoped_index",
    "with_index",
]

T = TypeVar("T")

# About 160,000 files at ~75 bytes a line: 10,000 jobs in 15 environments. Reading and
# checking the index takes about 7 bytes of memory a byte, so a hostile one at the
# limit keeps a build within 200 MB; a larger one is not read at all.
MAX_INDEX_BYTES = 12 * 1024 * 1024


class Index(NamedTuple):
    """Owned paths, each with its job's fingerprint (None for other files), and the
    line each is on. A NamedTuple: a frozen dataclass's methods were compiled from
    source at import."""

    marks: dict[str, str | None]
    lines: dict[str, int]


def with_index(
    files: Mapping[str, T], output: str, *, fingerprints: dict[str, str] | None = None
) -> dict[str, T | str]:
    """`files` plus the index of what kgen owns; a job's line carries a fingerprint of
    its rendered spec, so a later run can tell a job changed without parsing YAML."""
    marks = fingerprints or {}
    listing = "".join(
        f"{path} {marks[path]}\n" if path in marks else f"{path}\n"
        for path in sorted(files)
    )
    return {**files, index_path(output): HEADER + listing}


def scoped_index(
    files: Mapping[str, T], old: Index, output: str, scope: tuple[str, ...]
) -> dict[str, T | str]:
    """`files` of a build of some environments (the folders in `scope`), with an index
    that lists their new files and keeps every other entry of the `old` index as it
    was: `kgen build --env E` owns E's folder, and leaves the rest of the tree alone."""
    index = index_path(output)
    marks: dict[str, str | None] = {
        path: mark for path, mark in old.marks.items() if not path.startswith(scope)
    }
    text = files[index]
    assert isinstance(text, str)  # the index is made, never a digest
    for line in text.split("\n"):
        if line and line[0] != "#":
            path, mark = split_line(line, output)
            marks[path] = mark or None
    listing = "".join(
        f"{path} {marks[path]}\n" if marks[path] else f"{path}\n"
        for path in sorted(marks)
    )
    return {**files, index: HEADER + listing}


def read_index(root: Path, output: str) -> Index:
    """The whole index, checked; an empty one when there is none."""
    folder = _open_output(root, output)
    if folder is None:
        return Index({}, {})
    try:
        return index_in(folder, output)
    finally:
        os.close(folder)


def _unless_too_few(exc: OSError) -> None:
    """Raise `exc` as it is if it says the open-file limit is reached: the index is
    sound, the limit is what to change (kgen.cli_guard says so)."""
    if out_of_descriptors(exc):
        raise exc


def _open_output(root: Path, output: str) -> int | None:
    """The output root's descriptor, reached without links; None if there is none."""
    try:
        base = open_root(root)
    except OSError as exc:
        _unless_too_few(exc)
        raise KgenError(
            damaged(index_path(output), f"cannot read it: {exc.strerror}")
        ) from None
    try:
        return open_folder(base, output)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except Refused as exc:
        raise KgenError(refused_folder(exc, output)) from None
    except OSError as exc:
        _unless_too_few(exc)
        raise KgenError(
            damaged(index_path(output), f"cannot read it: {exc.strerror}")
        ) from None
    finally:
        os.close(base)


def index_in(folder: int, output: str) -> Index:
    """The checked index of the output root open as `folder`."""
    text = _text(folder, output)
    if text is None:
        return Index({}, {})
    if _last_index is not None and _last_index[:2] == (output, text):
        found = _last_index[2]  # a build reads the same index up to three times
        return Index(dict(found.marks), dict(found.lines))
    index = _parse(text, output)
    _remember_index(output, text, index)
    return Index(dict(index.marks), dict(index.lines))


# The last index read and what it held: a build reads it for the tree, the in-place
# check and the transition rules, and splitting 12,000 lines costs 25 ms each time.
_last_index: tuple[str, str, Index] | None = None
_last_text: tuple[str, bytes, str] | None = None


def _remember_index(output: str, text: str, index: Index) -> None:
    global _last_index
    _last_index = (output, text, index)


def _parse(text: str, output: str) -> Index:
    marks: dict[str, str | None] = {}
    lines: dict[str, int] = {}
    # An output root without spaces (kgen.yaml's usual) splits a line at its first
    # space, as split_line does, without a call a line (12,000 at 1,000 jobs).
    plain = " " not in output
    intern = sys.intern
    for number, line in enumerate(text.split("\n"), 1):
        if line and line[0] != "#":
            if plain:
                path, _, mark = line.partition(" ")
                path = intern(path)
            else:
                path, mark = split_line(line, output)
            if path not in marks:  # the first line of a path counts, as in _lookup
                marks[path] = mark or None
                lines[path] = number
    return Index(marks, lines)


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
    return path_pattern(output).fullmatch(path) is not None


def _text(folder: int, output: str) -> str | None:
    """The index's text, with line ends read as `\\n`, once it is known to be sound;
    None when there is no index."""
    index = index_path(output)
    try:
        data = read_file(folder, INDEX, index, limit=MAX_INDEX_BYTES)
    except Refused as exc:
        raise KgenError(damaged(index, f"it is {exc.kind}, not a file")) from None
    except OSError as exc:
        _unless_too_few(exc)
        raise KgenError(damaged(index, f"cannot read it: {exc.strerror}")) from None
    if data is None:
        return None
    if isinstance(data, Unread):
        why = f"it is {data.size:,} bytes; kgen writes about 80 bytes a file"
        raise KgenError(damaged(index, f"{why}, and reads at most {MAX_INDEX_BYTES:,}"))
    if _last_text is not None and _last_text[:2] == (output, data):
        return _last_text[2]  # checked already, in this process
    text = _checked_text(data, index, output)
    _remember_text(output, data, text)
    return text


def _remember_text(output: str, data: bytes, text: str) -> None:
    global _last_text
    _last_text = (output, data, text)


def _checked_text(data: bytes, index: str, output: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KgenError(damaged(index, f"it is not UTF-8 text: {exc.reason}")) from None
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if not text.endswith("\n"):
        text += "\n"
    if text_pattern(output).fullmatch(text) is None:
        raise KgenError(*bad_lines(text, output))
    return text
