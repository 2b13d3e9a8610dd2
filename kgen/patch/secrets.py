"""The secret rules over what the patches wrote (kgen.rules.secrets reads the spec, and
cannot see a patch): a literal under a secret's name (an env variable's, a key such as
an annotation `db-password`, a flag's as in `args: [--password, …]`), or a credential
in any string a patch wrote, would land in git and the cluster
(kgen.rules.object_secrets). Never silenced; each at the patch line, and no message
quotes the value."""

from __future__ import annotations

from collections.abc import Callable, Collection

from kgen.check.declared import declared_keys
from kgen.errors import DataPath, Problem, format_path
from kgen.load.document import Origin
from kgen.render.base import Manifest
from kgen.rules.object_secrets import string_secret


def patched_secrets(
    objects: list[Manifest],
    allowed: Collection[str],
    *,
    job_file: str,
    target: str,
    version: str,
) -> list[Problem]:
    """The job's own patches are spec values, whose strings kgen.rules.secrets
    already screens for credentials: for those, only the names (an env variable's, a
    key's such as an annotation `db-password`, a flag's before its value)."""
    problems = []
    for manifest in objects:
        if manifest.patched is None:
            continue
        chosen = _chosen(manifest, target, version)
        for path, origin in list(manifest.patched.marks.items()):
            screen = origin.file != job_file
            found = string_secret(
                manifest.body, path, allowed, chosen=chosen, screen=screen
            )
            if found is not None:
                what = found.what
                if found.named:
                    what += ", which looks like a secret,"
                problems.append(_problem(manifest, path, origin, found.code, what))
    return problems


def _chosen(
    manifest: Manifest, target: str, version: str
) -> Callable[[DataPath], bool]:
    """Which keys of the object its author chose, by its output schema: a field the
    API declares (`topologyKey`) says nothing of its value."""
    # Imported here: the output check has loaded them already, where patches apply.
    from kgen.check import core
    from kgen.check.output import CORE_DEFINITIONS, job_schema
    from kgen.kinds import kind_named

    if kind_named(manifest.kind) is not None:
        return declared_keys(job_schema(manifest.kind, target, version))
    definition = CORE_DEFINITIONS.get(manifest.kind)
    if definition is not None:
        return declared_keys(
            {"$ref": "#/$defs/" + definition}, core.definitions(version)
        )
    return lambda path: True


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
