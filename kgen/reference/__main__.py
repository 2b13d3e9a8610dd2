"""`python -m kgen.reference [FILE...]` (`make docs`): rewrite the generated sections
of the docs pages; a test fails when they are not what kgen renders now."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from kgen.reference.rules import RULES_BEGIN, RULES_END, render_rules
from kgen.reference.spec import BEGIN, END, render_reference

PAGES = ("docs/spec-reference.md", "docs/rules.md")
SECTIONS: tuple[tuple[str, str, Callable[[], str]], ...] = (
    (BEGIN, END, render_reference),
    (RULES_BEGIN, RULES_END, render_rules),
)


def update_page(path: Path) -> bool:
    """Rewrite the generated sections `path` holds; True when it changed."""
    text = path.read_text(encoding="utf-8")
    updated = text
    for begin, end, render in SECTIONS:
        if begin in updated:
            start, stop = updated.index(begin), updated.index(end) + len(end)
            updated = updated[:start] + render() + updated[stop:]
    if updated != text:
        path.write_text(updated, encoding="utf-8")
    return updated != text


if __name__ == "__main__":
    for name in sys.argv[1:] or PAGES:
        state = "updated" if update_page(Path(name)) else "current"
        sys.stdout.write(f"{name} is {state}\n")
