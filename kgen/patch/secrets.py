"""The secret rules over what the patches wrote (kgen.rules.secrets reads the spec, and
cannot see a patch): a literal under a secret's name in an env list, or a credential in
any string a patch wrote, would land in git and the cluster. Never silenced; each at
the patch line, and no message quotes the value."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from kgen.errors import DataPath, Problem, format_path
from kgen.load.document import Origin
from kgen.render.base import Manifest
from kgen.rules.credentials import leaks, literal
from kgen.rules.secret_names import secret_name


def patched_secrets(
    objects: list[Manifest], allowed: Collection[str], *, job_file: str
) -> list[Problem]:
    """The job's own patches are spec values, whose strings kgen.rules.secrets
    already screens for credentials: for those, only the names of env variables."""
    problems = []
    for manifest in objects:
        if manifest.patched is None:
            continue
        for path, origin in list(manifest.patched.marks.items()):
            screen = origin.file != job_file
            found = _secret(manifest.body, path, allowed, screen=screen)
            if found is not None:
                problems.append(_problem(manifest, path, origin, *found))
    return problems


def _secret(
    body: Any, path: DataPath, allowed: Collection[str], *, screen: bool
) -> tuple[str, str] | None:
    """(code, what) when the string at `path` is a secret written out."""
    parent = _at(body, path[:-1])
    value = parent.get(path[-1]) if isinstance(parent, dict) else None
    if not isinstance(value, str):
        return None
    env = len(path) >= 3 and path[-1] == "value" and path[-3] == "env"
    name = parent.get("name") if env and isinstance(parent, dict) else None
    named = isinstance(name, str) and secret_name(name) and name not in allowed
    if named and literal(value):
        return (
            "secret-env-literal",
            f"a literal value for {name}, which looks like a secret,",
        )
    found = leaks(value, allowed=allowed) if screen else []
    if found:
        return ("secret-env-literal" if env else "secret-literal"), found[0].what
    return None


def _at(body: Any, path: DataPath) -> Any:
    for part in path:
        try:
            body = body[part]
        except (KeyError, IndexError, TypeError):
            return None
    return body


def _problem(
    manifest: Manifest, path: DataPath, origin: Origin, code: str, what: str
) -> Problem:
    return Problem(
        f"the rendered {manifest.kind} '{manifest.name}': a patch writes {what} at"
        f" {format_path(path)}, which would land in git and the cluster",
        code,
        file=origin.file,
        line=origin.line,
        column=origin.column,
        hint="keep credentials in a Secret: an env variable takes one with"
        " `secretKeyRef`, and a command or argument as `$(VAR)`",
    )
