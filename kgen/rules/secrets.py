"""Credentials written into a job spec, which would land in git and in the cluster.

Found by name and by value (kgen.rules.secret_names, kgen.rules.credentials), wherever they go:
- env variables (job and roles): a secret's name with a literal value, or a value that
  is a credential: `secret-env-literal`; `lint.allowLiterals` allows a name that only
  looks like a secret, one by one, never a value that is a credential;
- every other string that reaches the output (command, args, labels, annotations,
  rendezvous settings, images, TensorBoard, free-form objects): `secret-literal`, never
  silenced; a flag (`--hf-token X`) or rendezvous option named like a secret counts as
  a name, and so does a key (`labels: {db-password: …}`, nodeSelector, annotations,
  free-form objects) or the `key` of a toleration or match expression beside a value
  (kgen.rules.secret_names.secret_place), allowed by name as env names are;
- the code-sync repository URL: `code-sync-credentials`, never silenced.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from itertools import pairwise
from typing import TYPE_CHECKING

from kgen.errors import DataPath, Problem, format_path
from kgen.rules.context import Rule, RuleContext
from kgen.rules.credentials import git_url_leaks, leaks, literal
from kgen.rules.reads import EVERYTHING, reads
from kgen.rules.secret_keys import named_values
from kgen.rules.secret_names import secret_name
from kgen.rules.values import screen, texts
from kgen.spec.job import role_items

if TYPE_CHECKING:
    from kgen.spec.job import JobSpec
    from kgen.spec.pod import EnvVar

_GIT_URL = re.compile(
    r"^(https?://|ssh://|git://|file://|[\w.-]+@[\w.-]+:)", re.IGNORECASE
)
_FLAG = re.compile(r"--?(?P<name>[A-Za-z][\w.-]*)")
_HINTS = {
    "command": "keep it in a Secret: take it into an env variable with secretKeyRef"
    " and write `$(VAR)` here",
    "labels": "anyone who can read the object reads its labels and annotations; keep"
    " credentials in a Secret",
}
_HINTS |= {
    "args": _HINTS["command"],
    "annotations": _HINTS["labels"],
    "podLabels": _HINTS["labels"],
    "podAnnotations": _HINTS["labels"],
}
_ENV_HINT = (
    "use `secretKeyRef: {name: <secret>, key: <key>}` instead of `value`; if {name} is"
    " no secret, allow it under lint.allowLiterals with a reason"
)


def allowed_literals(spec: JobSpec, ctx: RuleContext) -> Collection[str]:
    own = spec.lint.allow_literals
    return ctx.allowed_literals | own.keys() if own else ctx.allowed_literals


@reads(EVERYTHING)
def _env_literals(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    allowed = allowed_literals(spec, ctx)
    suspect = screen(spec).credentials
    lists: list[tuple[DataPath, list[EnvVar]]] = [(("env",), spec.env)]
    lists += [(("roles", n, "env"), r.env) for n, r in role_items(spec) if r.env]
    for path, env in lists:
        for index, var in enumerate(env):
            name, value = var.name, var.value
            if not value:
                continue
            where = (*path, index, "value")
            if secret_name(name) and name not in allowed and literal(value):
                yield Problem(
                    f"{name} looks like a secret, and its literal value would be committed to git",
                    "secret-env-literal",
                    path=where,
                    hint=_ENV_HINT.replace("{name}", name),
                )
                continue
            found = leaks(value, allowed=allowed) if suspect else []
            if found:
                yield Problem(
                    f"the value of {name} holds {found[0].what}, which would be committed to git",
                    "secret-env-literal",
                    path=where,
                    hint="keep it in a Secret and use `secretKeyRef`; a URL takes its"
                    " password from another variable as `$(VAR)`",
                )


@reads(EVERYTHING)
def _secret_values(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    """Credentials in any other string that reaches the output."""
    if not screen(spec).credentials:
        return
    allowed = allowed_literals(spec, ctx)
    for text in texts(spec):
        path = text.path
        if _is_env_value(path) or path == ("codeSync", "repo"):
            continue  # their own rules, with their own codes
        found = leaks(text.text, allowed=allowed)
        if found:
            yield literal_problem(path, found[0].what, at_key=text.at_key)


def _is_env_value(path: DataPath) -> bool:
    return len(path) >= 3 and path[-1] == "value" and path[-3] == "env"


def literal_problem(path: DataPath, what: str, *, at_key: bool = False) -> Problem:
    # The spec field (a role's own, under roles.<role>) the value belongs to.
    field = str(path[2] if path[:1] == ("roles",) and len(path) > 2 else path[0])
    return Problem(
        f"{format_path(path)} holds {what}, which would land in git and the cluster",
        "secret-literal",
        path=path,
        at_key=at_key,
        hint=_HINTS.get(field, "keep credentials in a Secret and reference it"),
    )


@reads("command", "args", "roles", "lint")
def _named_arguments(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    """`--password hunter2` as two items of command or args."""
    allowed = allowed_literals(spec, ctx)
    lists: list[tuple[DataPath, list[str] | None]] = [
        (("command",), spec.command),
        (("args",), spec.args),
    ]
    for name, role in role_items(spec):
        lists += [(("roles", name, "command"), role.command)]
        lists += [(("roles", name, "args"), role.args)]
    for path, items in lists:
        for index, (flag, value) in enumerate(pairwise(items or [])):
            if flag[:1] != "-" or value[:1] == "-":
                continue
            match = _FLAG.fullmatch(flag)
            if match is None:
                continue
            name = match.group("name")
            if named_literal(name, value, allowed):
                yield literal_problem((*path, index + 1), f"a literal value for {name}")


def named_literal(name: str, value: str, allowed: Collection[str]) -> bool:
    # A value that is itself a credential is reported where it stands (_secret_values).
    return (
        secret_name(name)
        and name not in allowed
        and literal(value)
        and not leaks(value, allowed=allowed)
    )


@reads(
    "labels",
    "annotations",
    "podLabels",
    "podAnnotations",
    "nodeSelector",
    "tolerations",
    "affinity",
    "roles",
    "lint",
)
def _secret_keys(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    """A literal under a secret-like key (`labels: {db-password: …}`) or beside one
    (a toleration's or match expression's `key`): the same names as env variables'."""
    allowed = allowed_literals(spec, ctx)
    for path, name, value in named_values(spec):
        if named_literal(name.rpartition("/")[2], value, allowed):
            yield literal_problem(path, f"a literal value for {name}")


@reads("codeSync")
def _code_sync(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    sync = spec.code_sync
    if sync is None:
        return
    if git_url_leaks(sync.repo):
        yield Problem(
            "the repository URL carries credentials, which would land in git and the cluster",
            "code-sync-credentials",
            path=("codeSync", "repo"),
            hint="put them in a Secret (keys username, password) and name it in codeSync.credentialsSecret",
        )
    elif not _GIT_URL.match(sync.repo):
        yield Problem(
            f"'{sync.repo}' is not a git repository URL",
            "invalid-value",
            path=("codeSync", "repo"),
        )


SECRET_RULES: tuple[Rule, ...] = (
    _env_literals,
    _secret_values,
    _named_arguments,
    _secret_keys,
    _code_sync,
)
