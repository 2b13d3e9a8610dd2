"""`kgen diff --base REF --format markdown`: what a pull request changes, per
environment, for a review comment: objects added, removed and changed, and the GPUs the
environment asks for before and after."""

from __future__ import annotations

import difflib

from kgen.base.snapshot import Snapshot
from kgen.errors import masked, printable

# A comment names each object; past this many per list it says how many more.
LISTED = 50


def markdown(
    base: Snapshot, head: Snapshot, *, ref: str, notes: tuple[str, ...] | list[str] = ()
) -> str:
    envs = sorted(_envs(base) | _envs(head))
    rows, sections = [], []
    for env in envs:
        added, removed, changed = _changes(base, head, env)
        before, after = base.gpus.get(env, 0), head.gpus.get(env, 0)
        rows.append(
            f"| `{_cell(env)}` | {len(added)} | {len(removed)} | {len(changed)}"
            f" | {before} → {after}{_delta(before, after)} |"
        )
        sections += _section(env, added, removed, changed)
    if not envs:
        return f"### kgen: no environments at `{_cell(ref)}` or now\n"
    head_line = f"### kgen: changes against `{_cell(ref)}`\n\n"
    table = [
        "| environment | added | removed | changed | GPUs |",
        "|---|---:|---:|---:|---|",
        *rows,
    ]
    body = "\n".join(table) + "\n"
    if notes:
        body += "\n" + "".join(f"> **Warning**: {_cell(n)}\n" for n in notes)
    if not sections:
        return head_line + body + "\nNo object changes.\n"
    return head_line + body + "\n" + "\n".join(sections)


def unified(base: Snapshot, head: Snapshot, *, ref: str) -> str:
    """The rendered objects at the base and now, as a unified diff."""
    out: list[str] = []
    for key in sorted(base.files.keys() | head.files.keys()):
        old, new = base.files.get(key), head.files.get(key)
        if old == new:
            continue
        out += difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            (new or "").splitlines(keepends=True),
            f"{ref}:{key}" if old is not None else "/dev/null",
            key if new is not None else "/dev/null",
        )
    return masked("".join(out))


def _envs(snapshot: Snapshot) -> set[str]:
    return set(snapshot.gpus) | {key.partition("/")[0] for key in snapshot.files}


def _changes(
    base: Snapshot, head: Snapshot, env: str
) -> tuple[list[str], list[str], list[str]]:
    prefix = f"{env}/"
    old = {
        k.removeprefix(prefix): v for k, v in base.files.items() if k.startswith(prefix)
    }
    new = {
        k.removeprefix(prefix): v for k, v in head.files.items() if k.startswith(prefix)
    }
    added = sorted(new.keys() - old.keys())
    removed = sorted(old.keys() - new.keys())
    changed = sorted(k for k in old.keys() & new.keys() if old[k] != new[k])
    return (
        [_object(a) for a in added],
        [_object(r) for r in removed],
        [_object(c) for c in changed],
    )


def _object(filename: str) -> str:
    """`mnist.pytorchjob.yaml` as `pytorchjob/mnist`."""
    stem = filename.removesuffix(".yaml")
    name, _, kind = stem.rpartition(".")
    return f"{kind}/{name}" if name else stem


def _section(
    env: str, added: list[str], removed: list[str], changed: list[str]
) -> list[str]:
    if not (added or removed or changed):
        return []
    lines = [f"<details><summary><code>{_html(env)}</code></summary>\n"]
    for title, names in (("Added", added), ("Removed", removed), ("Changed", changed)):
        if names:
            shown = [f"- `{_cell(n)}`" for n in names[:LISTED]]
            if len(names) > LISTED:
                shown.append(f"- … and {len(names) - LISTED} more")
            lines.append(f"**{title}**\n\n" + "\n".join(shown) + "\n")
    lines.append("</details>\n")
    return ["\n".join(lines)]


def _delta(before: int, after: int) -> str:
    return "" if before == after else f" ({after - before:+d})"


def _cell(text: str) -> str:
    # Names come from the project: masked, escaped, and unable to end a code span or
    # a table cell.
    return printable(masked(text)).replace("`", "'").replace("|", "\\|")


def _html(text: str) -> str:
    return _cell(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
