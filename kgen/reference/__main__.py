"""`python -m kgen.reference FILE` (`make docs`): rewrite the generated sections of FILE;
a test fails when they are not what kgen renders now."""

from __future__ import annotations

import sys
from pathlib import Path

from kgen.reference.rules import RULES_BEGIN, RULES_END, render_rules
from kgen.reference.spec import BEGIN, END, render_reference


def update_readme(path: Path) -> bool:
    """Rewrite the generated sections of `path`; True when it changed."""
    text = path.read_text(encoding="utf-8")
    updated = text
    for begin, end, body in (
        (BEGIN, END, render_reference()),
        (RULES_BEGIN, RULES_END, render_rules()),
    ):
        start, stop = updated.index(begin), updated.index(end) + len(end)
        updated = updated[:start] + body + updated[stop:]
    if updated != text:
        path.write_text(updated, encoding="utf-8")
    return updated != text


if __name__ == "__main__":
    changed = update_readme(Path(sys.argv[1] if len(sys.argv) > 1 else "README.md"))
    sys.stdout.write("README.md updated\n" if changed else "README.md is current\n")
