"""The unified diff `kgen diff` and `build --check --diff` print: bounded, masked and
escaped, since the tree's files are input a pull request can plant.

Every file in the output folder is read as hostile: one of 4 MiB of NUL bytes, or
twenty of them, must not take seconds and flood the CI log. So the diff shows the old
text of a file up to MAX_SHOWN bytes (a larger one is named with its size), and stops
once it has MAX_TOTAL characters (the files left are counted). A stale file of more than
MAX_REMOVED_LINES lines is summed up as the lines it removes. The old text is masked
before it is shown (a credential in a file kgen does not own reaches the log
otherwise), and control characters are escaped so it cannot repaint the terminal.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import TYPE_CHECKING

from kgen.errors import masked, printable
from kgen.output.digests import Digest
from kgen.output.safe_paths import Unread

if TYPE_CHECKING:
    from kgen.output.compare import Contents, OutputTree, TreeDiff

# kgen's own files are a few KB; a diff is for a reviewer to read.
MAX_SHOWN = 64 * 1024
# Masking costs up to a microsecond a character (text dense with URLs): what is shown
# is masked, so this bounds that too.
MAX_TOTAL = 128 * 1024
MAX_REMOVED_LINES = 2000
# C0 controls but tab and line feed, DEL and C1 as \x escapes, in one pass (str.translate
# runs at C speed: a per-character loop took 4 s for 4 MiB).
_CONTROLS = {
    code: f"\\x{code:02x}"
    for code in [*range(0x20), *range(0x7F, 0xA0)]
    if code not in (0x09, 0x0A)
}


def unified_diff(
    tree: OutputTree,
    files: Mapping[str, str | Digest],
    diff: TreeDiff,
    current: Contents,
) -> str:
    """The changes as a unified diff. Only regular files are read, none over
    MAX_SHOWN bytes, none once the diff is MAX_TOTAL characters long, and paths are
    shown escaped."""
    paths = sorted([*diff.modified, *diff.missing, *diff.stale])
    on_disk = {*diff.modified, *diff.stale}
    chunks: list[str] = []
    budget = MAX_TOTAL
    for done, path in enumerate(paths):
        if budget <= 0:
            chunks.append(_not_shown(len(paths) - done))
            break
        before = current.get(path)
        if path in on_disk and not isinstance(before, bytes):
            # Read here, one file at a time: thousands of planted files are never
            # all held at once, and those past the total are never read.
            before = tree.read({path: MAX_SHOWN})[path]
        # (A file that holds its text, SAME, is not among the changes.)
        shown = before if isinstance(before, bytes | Unread) else None
        after = files.get(path)
        if isinstance(after, Digest):  # pragma: no cover - a diff is made from texts
            raise RuntimeError("a diff needs the texts, not their digests")
        chunks.append(_file_diff(printable(path), shown, after))
        budget -= len(chunks[-1])
    return "".join(chunks)


def _file_diff(shown: str, before: bytes | Unread | None, after: str | None) -> str:
    note = ""
    if isinstance(before, Unread) or (
        isinstance(before, bytes) and len(before) > MAX_SHOWN
    ):
        size = before.size if isinstance(before, Unread) else len(before)
        note = f"kgen: a/{shown} is {size:,} bytes; not shown\n"
        before = None
    text = _text(before)
    if text is None:
        note = f"kgen: a/{shown} is not UTF-8 text; not shown\n"
    old = _lines(text or "")
    if after is None and len(old) > MAX_REMOVED_LINES:
        return f"kgen: a/{shown}: {len(old):,} lines removed; not shown\n"
    diff = "".join(
        difflib.unified_diff(old, _lines(after or ""), f"a/{shown}", f"b/{shown}")
    )
    # Masked as a whole (a private key spans lines), and only what is shown: a
    # stale file's credentials would reach the CI log otherwise.
    return note + "\n".join(_escaped(line) for line in masked(diff).split("\n"))


def _not_shown(count: int) -> str:
    return (
        f"kgen: {count:,} more changed files are not shown: the diff stops after"
        f" {MAX_TOTAL:,} characters\n"
    )


def _lines(text: str) -> list[str]:
    """Lines split at '\\n' only, credentials masked and control characters but tabs
    escaped: a file in the tree is input, and both would reach the CI log raw."""
    if not text:
        return []
    lines = masked(text).split("\n")
    last = lines.pop()
    shown = [_escaped(line) + "\n" for line in lines]
    return [*shown, _escaped(last)] if last else shown


def _escaped(line: str) -> str:
    if line.isprintable():
        return line
    line = line.translate(_CONTROLS)
    if line.replace("\t", "").isprintable():
        return line
    return "".join(c if c == "\t" else printable(c) for c in line)


def _text(data: bytes | None) -> str | None:
    """The file's text; "" for no file, None for one that is not UTF-8."""
    if data is None:
        return ""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
