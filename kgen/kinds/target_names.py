"""Target names as a message says them (kgen.kinds.targets), and the error for a kind
on a target whose operator does not serve it."""

from __future__ import annotations

from kgen.errors import Problem
from kgen.kinds.targets import TARGETS, ApiTarget


def not_on(kind: str, targets: frozenset[str], target: ApiTarget) -> Problem:
    """A kind the target's operator does not serve: the API server has no such
    resource there, so the job could never be applied."""
    where = named_targets(targets)
    which = "the target" if len(targets) == 1 else "the targets"
    return Problem(
        f"{kind} does not exist on API target {target.name} ({target.description})",
        "target-unsupported-kind",
        path=("framework",),
        hint=f"{kind} exists on {which} {where}; leave this job out of the environment (`jobs:` in kgen.yaml) or change its target",
    )


def named_targets(names: frozenset[str] | set[str]) -> str:
    """Target names for a message, with each unbroken run of three or more releases of
    one line as a range: `training-operator-1.3 to training-operator-1.9, v1`."""
    lines: dict[str, list[tuple[tuple[int, ...], str]]] = {}
    rest = []
    for name in names:
        prefix, _, version = name.rpartition("-")
        parts = version.split(".")
        if prefix and len(parts) == 2 and all(p.isdigit() for p in parts):
            lines.setdefault(prefix, []).append((tuple(map(int, parts)), name))
        else:
            rest.append(name)
    shown = []
    for prefix, members in lines.items():
        members.sort()
        # Every release of the line between the first and the last: a range says so.
        line = sorted(
            (tuple(map(int, n.rpartition("-")[2].split("."))), n)
            for n in TARGETS
            if n.rpartition("-")[0] == prefix
            and members[0][0]
            <= tuple(map(int, n.rpartition("-")[2].split(".")))
            <= members[-1][0]
        )
        if len(members) >= 3 and line == members:
            shown.append(f"{members[0][1]} to {members[-1][1]}")
        else:
            shown += [n for _, n in members]
    return ", ".join(sorted(shown + rest))
