"""The secret rules over the team's objects (resources/), as over jobs
(kgen.rules.secrets): a literal under a secret's name (a ConfigMap key `password`, an
env variable DB_PASSWORD, an annotation `db-password`, `args: [--password, …]`) or a
credential in any string (a GitHub token, a URL's password) would be committed to git
and reach the cluster (docs/guarantees.md). Never silenced but by kgen.yaml's
lint.allowLiterals, for a name only; each at its line, and no message quotes the
value."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any

from kgen.check import core
from kgen.check.declared import declared_keys
from kgen.errors import DataPath, Problem, format_path, value_in
from kgen.load.jobs import located
from kgen.resources.check import TeamObject, core_kinds
from kgen.rules.object_secrets import Found, string_secret
from kgen.spec.validate import MAX_PROBLEMS

_ENV_HINT = (
    "use `secretKeyRef: {name: <secret>, key: <key>}` instead of `value`; if {name} is"
    " no secret, allow it under kgen.yaml lint.allowLiterals with a reason"
)
_HINT = (
    "keep credentials in a Secret created in the cluster and refer to it by name (an"
    " env variable takes one with `secretKeyRef`, a command or argument as `$(VAR)`)"
)


def secret_problems(
    obj: TeamObject,
    *,
    version: str,
    crds: Mapping[tuple[str, str], Any],
    allowed: Collection[str],
) -> list[Problem]:
    """The object's secrets written out, the first MAX_PROBLEMS of them, located."""
    chosen = _chosen(obj, version, crds)
    found = []
    for path in _strings(obj.body):
        secret = string_secret(obj.body, path, allowed, chosen=chosen)
        if secret is not None:
            found.append(_problem(obj, path, secret))
            if len(found) == MAX_PROBLEMS:
                break
    return [located(p, obj.file.doc) for p in found]


def _chosen(
    obj: TeamObject, version: str, crds: Mapping[tuple[str, str], Any]
) -> Callable[[DataPath], bool]:
    api = obj.body.get("apiVersion")
    definition = core_kinds(version).get((str(api), obj.kind))
    if definition is not None:
        return declared_keys(
            {"$ref": "#/$defs/" + definition}, core.definitions(version)
        )
    schema = getattr(crds.get((str(api), obj.kind)), "schema", None)
    return declared_keys(schema) if schema is not None else lambda path: True


def _strings(body: Any) -> Iterator[DataPath]:
    """The path of every string in `body`, in the order written."""
    stack: list[tuple[DataPath, Any]] = [((), body)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            stack += reversed([((*path, k), v) for k, v in node.items()])
        elif isinstance(node, list):
            stack += reversed([((*path, i), v) for i, v in enumerate(node)])
        elif isinstance(node, str):
            yield path


def _problem(obj: TeamObject, path: DataPath, found: Found) -> Problem:
    named = f"{obj.kind} '{obj.name}'"
    if found.code == "secret-env-literal":
        name = value_in(obj.body, (*path[:-1], "name"))
        if found.named:
            return Problem(
                f"{named}: {name} looks like a secret, and its literal value would be"
                " committed to git",
                found.code,
                path=path,
                hint=_ENV_HINT.replace("{name}", str(name)),
            )
        return Problem(
            f"{named}: the value of {name} holds {found.what}, which would be"
            " committed to git",
            found.code,
            path=path,
            hint=_HINT,
        )
    return Problem(
        f"{named}: {format_path(path)} holds {found.what}, which would land in git"
        " and the cluster",
        found.code,
        path=path,
        hint=_HINT,
    )
