"""Reading what `kgen import` is given: manifest files of many YAML documents each,
bounded as the loader bounds a project file.

Each argument is read like any input (kgen.load.files: a regular file, at most 1 MiB;
a FIFO is an error, not a hang), and only inside the current folder: CI runs
`kgen import` on the files of a pull request, which may name `../x`, an absolute path or
a link to a file the runner can read (a token, a credential file). A path whose real
path, links resolved, lies outside the current folder is refused before it is opened,
with the same message whether or not it exists. Its documents are loaded one by one, so a broken one is reported at its line
and the others still count, and together: at most MAX_DOCUMENTS documents a file, and
one budget of values and characters for all of them (kgen.load.limits), so neither
20,000 tiny documents nor an alias bomb in each costs more than one big document.
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

from kgen.errors import Problem
from kgen.load.document import Document
from kgen.load.files import escapes, is_inside, read_input
from kgen.load.limits import Budget
from kgen.load.yaml import decode, load_string

# A file of kubectl or kustomize output holds a few hundred objects at most; 1 MiB of
# the smallest real manifests is about a thousand.
MAX_DOCUMENTS = 1000

# A line that starts a document (YAML 1.2, section 9.1.2): '---', then a space, a tab
# or the end of the line. '---x' is text.
_MARKER = re.compile(r"---(?:[ \t]|\r?$)")


def read_manifests(
    paths: list[Path], *, cwd: Path
) -> tuple[list[Document], list[Problem]]:
    """Every document of every file, in order, and the problems of those that are not
    one; positions are the lines of the file."""
    documents: list[Document] = []
    problems: list[Problem] = []
    for path in _once(paths, cwd):
        display = path.as_posix()
        refused = _outside(cwd, path, display)
        if refused is not None:
            problems.append(refused)
            continue
        reading = read_input(cwd / path, display, root=cwd)
        if reading.raw is None:
            problems += [reading.problem] if reading.problem else []
            continue
        text, errors = decode(reading.raw, display)
        problems += errors
        if text is not None:
            found, errors = _load_documents(text, display)
            documents += found
            problems += errors
    return documents, problems


def _once(paths: list[Path], cwd: Path) -> list[Path]:
    """`paths` without a second name for a file already named (`a.yaml ./a.yaml`,
    `sub/../a.yaml`, a link to it): each file's jobs are imported once, not twice."""
    first: dict[str, Path] = {}
    for path in paths:
        first.setdefault(os.path.realpath(cwd / path), path)
    return list(first.values())


def _outside(cwd: Path, path: Path, display: str) -> Problem | None:
    """The problem of a path that leaves the current folder, as written or through a
    link; nothing is opened, so the message says the same for a file that is not there."""
    if not is_inside(os.path.abspath(cwd / path), cwd):
        return Problem(
            f"{display} is outside the current folder; kgen import reads only files"
            " inside it",
            "io",
            file=display,
            hint="copy the file into the project (or run kgen import from a folder"
            " that holds it)",
        )
    if not is_inside(os.path.realpath(cwd / path), cwd):
        return escapes(display)
    return None


def _load_documents(text: str, display: str) -> tuple[list[Document], list[Problem]]:
    chunks = split_documents(text)
    if len(chunks) > MAX_DOCUMENTS:
        return [], [_too_many(display, chunks[MAX_DOCUMENTS][0])]
    documents: list[Document] = []
    problems: list[Problem] = []
    budget = Budget(shared=True)
    for before, chunk in chunks:
        doc, errors = load_string(chunk, display, budget=budget)
        problems += [
            p.at(display, (p.line or 1) + before, p.column or 1) for p in errors
        ]
        if doc is not None:
            documents.append(_moved(doc, before))
        elif any(p.code == "yaml-too-large" for p in errors):
            break  # the budget is spent: every later document would say so again
    return documents, problems


def _moved(doc: Document, lines: int) -> Document:
    """`doc`, loaded on its own, with the positions it has in the file."""
    if lines:
        doc.positions = {
            path: origin._replace(
                line=origin.line + lines, key_line=origin.key_line + lines
            )
            for path, origin in doc.positions.items()
        }
    return doc


def _too_many(display: str, before: int) -> Problem:
    return Problem(
        f"more than {MAX_DOCUMENTS} YAML documents in one file",
        "yaml-too-large",
        file=display,
        line=before + 1,
        column=1,
        hint="split the file; kgen import takes many files",
    )


def split_documents(text: str) -> list[tuple[int, str]]:
    """Each document's text and the number of lines before it in the file. A document
    starts at its '---' line, or at the directives (%YAML, %TAG) before that line."""
    lines = text.split("\n")
    starts = [0]
    for number in range(1, len(lines)):
        if lines[number].startswith("---") and _MARKER.match(lines[number]):
            starts.append(_directives_before(lines, number, starts[-1]))
    starts.append(len(lines))
    chunks = []
    for first, end in itertools.pairwise(starts):
        chunk = "\n".join(lines[first:end])
        if chunk.strip():
            chunks.append((first, chunk))
    return chunks


def _directives_before(lines: list[str], marker: int, floor: int) -> int:
    """Where the document whose '---' is at `marker` starts: at the first of the
    directives, comments and blank lines just above it, if a directive is among them."""
    start, directive = marker, False
    while start > floor and (
        not lines[start - 1].strip() or lines[start - 1].startswith(("%", "#"))
    ):
        start -= 1
        directive = directive or lines[start].startswith("%")
    return start if directive else marker
