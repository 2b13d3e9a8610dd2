"""A control character in what `kgen import` writes, refused where the input holds it.

kgen refuses a control character (C0 but tab and line breaks, DEL, C1) or a
bidirectional override in every string of a job (kgen.rules.values: Trojan Source), and
the import wrote the string into the spec, or a patch, and said it had imported the job:
the project it wrote then failed `kgen validate`. The import now refuses it, at the
input's own string, as `kgen validate` would at the spec's."""

from __future__ import annotations

from typing import Any

from kgen.errors import DataPath, Problem
from kgen.load.document import Document
from kgen.rules.values import control_character


def control_problems(doc: Document, written: Any) -> list[Problem]:
    """Each string of `doc` (keys too) that `written` (the spec and its patches)
    holds and that holds a control character, at its place in `doc`."""
    held = {text for text in _strings(written) if _found(text) is not None}
    if not held:
        return []
    problems = []
    for path, text, at_key in _places(doc.data, ()):
        if text not in held:
            continue
        held.discard(text)  # each string once, at its first place
        found = control_character(text, path, at_key=at_key)
        assert found is not None
        origin = doc.origin(path)
        problems.append(
            Problem(
                f"cannot import this {doc.data.get('kind')}: {found.message}",
                "import-unsupported",
                file=doc.file,
                line=origin.key_line if at_key else origin.line,
                column=origin.key_column if at_key else origin.column,
                hint=found.hint,
            )
        )
    return problems


def _found(text: str) -> Problem | None:
    return control_character(text, (), at_key=False)


def _strings(node: Any) -> list[str]:
    out: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            out += [k for k in item if isinstance(k, str)]
            stack += item.values()
        elif isinstance(item, list):
            stack += item
    return out


def _places(node: Any, path: DataPath) -> list[tuple[DataPath, str, bool]]:
    """Each string in `node` with its path, in the order written; a key's with
    at_key."""
    out: list[tuple[DataPath, str, bool]] = []
    stack: list[tuple[DataPath, Any]] = [(path, node)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            out.append((where, item, False))
        elif isinstance(item, dict):
            for key, value in reversed(list(item.items())):
                stack.append(((*where, key), value))
            out += [((*where, k), k, True) for k in item if isinstance(k, str)]
        elif isinstance(item, list):
            stack += [((*where, i), v) for i, v in reversed(list(enumerate(item)))]
    return out
