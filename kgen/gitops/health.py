"""The Argo CD health check of a job kind, as the Lua argocd-cm takes, built from the
kind's condition table (kgen.kinds.base.Health)."""

from __future__ import annotations

import functools

from kgen.kinds.health import Health

_FIND_CONDITIONS = """\
local hs = {}
local found = {}
if obj.status ~= nil and obj.status.conditions ~= nil then
  for _, condition in ipairs(obj.status.conditions) do
    if condition.status == "True" then
      found[condition.type] = condition
    end
  end
end
"""


@functools.cache
def health_lua(health: Health) -> str:
    """The first True condition of the table decides; none: `health.otherwise`."""
    lines = [_FIND_CONDITIONS]
    for index, (condition, status, message) in enumerate(health.conditions):
        keyword = "if" if index == 0 else "elseif"
        lines.append(
            f"{keyword} found[{_quoted(condition)}] ~= nil then\n"
            f"  hs.status = {_quoted(status)}\n"
            f"  hs.message = found[{_quoted(condition)}].message or {_quoted(message)}\n"
        )
    status, message = health.otherwise
    lines.append(
        f"else\n  hs.status = {_quoted(status)}\n  hs.message = {_quoted(message)}\n"
    )
    lines.append("end\nreturn hs\n")
    return "".join(lines)


def _quoted(text: str) -> str:
    # The table is kgen's own data; a quote or backslash in it would need escaping.
    assert '"' not in text and "\\" not in text and "\n" not in text
    return f'"{text}"'
