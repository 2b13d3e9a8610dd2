"""Rule codes that stand for several, in `lint.ignore` and in a policy."""

from __future__ import annotations

# Codes that stand for several: `host-namespaces` was one rule for hostPID, hostIPC and
# hostNetwork before each had its own, and a suppression of it keeps silencing all three.
RULE_GROUPS: dict[str, tuple[str, ...]] = {
    "host-namespaces": ("host-pid", "host-ipc", "host-network"),
}


def expanded(codes: dict[str, str]) -> dict[str, str]:
    """`codes` with each group's members added (a member written itself keeps its own)."""
    if not RULE_GROUPS.keys() & codes.keys():
        return codes
    out = dict(codes)
    for group, members in RULE_GROUPS.items():
        if group in codes:
            for member in members:
                out.setdefault(member, codes[group])
    return out
