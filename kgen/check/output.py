"""Validate what kgen renders, in-process and offline, and point each error at the spec.

Jobs are checked against their kind's envelope for their API target
(kgen.check.envelope) with the pod template as the core PodTemplateSpec; claims,
Deployments and Services against the core definitions; anything with a user-supplied
CRD against that CRD too. Validators are built once per (kind, target, Kubernetes
version) and reused.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any

from kgen.check import core
from kgen.check.cel_envelope import envelope_errors
from kgen.check.envelope import envelope

# unknown_fields is read from here too (kgen.importer.jobs).
from kgen.check.pruned import MAX_ERRORS as MAX_ERRORS
from kgen.check.pruned import Pruned, pruned_fields
from kgen.check.pruned import unknown_fields as unknown_fields
from kgen.check.schema_words import python_worded
from kgen.check.stored import stored_schema
from kgen.check.trace import patch_at, trace
from kgen.errors import DataPath, Problem, format_path, shortened, unquoted, value_in
from kgen.kinds import kind_named
from kgen.kinds.targets import TARGETS, pod_schema_version
from kgen.render.base import Manifest
from kgen.rules.secret_names import holds_secret

if TYPE_CHECKING:  # jsonschema loads only when an object fails the compiled check
    from jsonschema import Draft202012Validator, ValidationError

    from kgen.spec.job import JobSpec

CORE_DEFINITIONS = {
    "PersistentVolumeClaim": "io.k8s.api.core.v1.PersistentVolumeClaim",
    "Service": "io.k8s.api.core.v1.Service",
    "Deployment": "io.k8s.api.apps.v1.Deployment",
}
# User CRD schemas by (apiVersion, kind).
CrdSchemas = Mapping[tuple[str, str], Any]


@functools.cache
def job_schema(kind: str, target: str, version: str) -> dict[str, Any]:
    registered = kind_named(kind)
    assert registered is not None
    return stored_schema(
        _key(kind, target, version),
        lambda: core.lean_with_definitions(
            envelope(registered, TARGETS[target]), version
        ),
    )


def _key(kind: str, target: str, version: str) -> tuple[str, ...]:
    """What job_schema is stored under (kgen.check.stored)."""
    return ("job", kind, target, version)


@functools.cache
def job_validator(kind: str, target: str, version: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(job_schema(kind, target, version))


def fast_validator(kind: str, target: str, version: str) -> Any:
    """jsonschema-rs for the common case, a valid object; None where it is missing.
    A core kind's validator is the same for every API target: built once, not once
    per target (a Deployment's costs 2-20 ms, in each worker)."""
    if kind in CORE_DEFINITIONS:
        return _fast_validator(kind, "", version)
    return _fast_validator(kind, target, version)


@functools.cache
def _fast_validator(kind: str, target: str, version: str) -> Any:
    try:
        import jsonschema_rs  # noqa: F401
    except ImportError:  # pragma: no cover
        return None
    definition = CORE_DEFINITIONS.get(kind)
    if definition is not None:
        return core.fast_validator(definition, version)
    return core.compiled(
        _key(kind, target, version), lambda: job_schema(kind, target, version)
    )


def validator_for(
    manifest: Manifest, target: str, version: str
) -> Draft202012Validator | None:
    if kind_named(manifest.kind) is not None:
        return job_validator(manifest.kind, target, version)
    definition = CORE_DEFINITIONS.get(manifest.kind)
    return core.validator_for(definition, version) if definition else None


def check_output(
    manifests: list[Manifest],
    *,
    target: str,
    version: str,
    crds: CrdSchemas,
    spec: JobSpec | None = None,
) -> list[Problem]:
    """The rendered objects' errors, each at the `spec` value that produced it."""
    problems = []
    for manifest in manifests:
        job, fast, schema_version = _checks(manifest.kind, target, version)
        own = fast is None or not fast.is_valid(manifest.body)
        validators = [validator_for(manifest, target, schema_version)] if own else []
        if crds:
            key = (manifest.body["apiVersion"], manifest.kind)
            if key in crds:
                validators.append(crds[key])
        found: list[Problem] = []
        pruned = None
        if own and schema_version != version and validators[0] is not None:
            pruned = pruned_fields(
                manifest, target, version, validators[0], job_validator
            )
        for validator in validators:
            if validator is not None:
                errors = validator.iter_errors(manifest.body)
                # A field the project's CRD also lacks is said once.
                found += [
                    p
                    for p in _listed(manifest, errors, pruned, spec=spec)
                    if p not in found
                ]
        if not found and job:
            rules = envelope_errors(manifest, target=target)
            found = _listed(manifest, rules, spec=spec)
        problems += found
    return problems


@functools.cache
def _checks(kind: str, target: str, version: str) -> tuple[bool, Any, str]:
    """Whether `kind` is a job's, its fast validator (None where it has none) and the
    Kubernetes minor of its schema (a job's pod template: the one its release's CRD
    embeds, if older), once per kind, target and version rather than once per object."""
    job = kind_named(kind) is not None
    known = job or kind in CORE_DEFINITIONS
    schema_version = pod_schema_version(target, version) if job else version
    fast = fast_validator(kind, target, schema_version) if known else None
    return job, fast, schema_version


_PRODUCED = "this spec value produced it; the cluster would reject or prune it"


def _listed(
    manifest: Manifest,
    errors: Iterable[Any],
    pruned: Pruned | None = None,
    *,
    spec: JobSpec | None,
) -> list[Problem]:
    problems: dict[tuple[DataPath, str], Problem] = {}
    for count, error in enumerate(islice(errors, MAX_ERRORS + 1)):
        if count == MAX_ERRORS:
            more = Problem(
                f"the rendered {manifest.kind} '{manifest.name}' has more than"
                f" {MAX_ERRORS} schema errors; the rest are not listed",
                "too-many-problems",
                path=(),
                at_key=True,
                hint="fix the ones listed (often one mistake causes them all)"
                " and validate again",
            )
            problems[((), more.message)] = more
        else:
            # The same error from many schemas (an allOf) is said once.
            for problem in _problems(manifest, error, pruned, spec=spec):
                problems.setdefault((problem.path, problem.message), problem)
    return list(problems.values())


def _problems(
    manifest: Manifest,
    error: ValidationError,
    pruned: Pruned | None = None,
    *,
    spec: JobSpec | None,
) -> list[Problem]:
    where: DataPath = tuple(error.absolute_path)
    if error.validator != "additionalProperties" or not isinstance(
        error.instance, dict
    ):
        message = core.range_message(error) or error.message
        if holds_secret(where, lambda path: value_in(manifest.body, path)):
            # A value under a secret's name is never quoted, whatever is wrong with it.
            message = unquoted(message, error.instance)
        message = python_worded(message, error)
        return [_problem(manifest, where, message, spec=spec)]
    # Name each unknown field, so the trace reaches the spec value that set it.
    schema = error.schema if isinstance(error.schema, dict) else {}
    known = set(schema.get("properties", {}))
    unknown = sorted(set(error.instance) - known)
    problems = []
    for key in unknown:
        path = (*where, key)
        if pruned is not None and path in pruned.paths:
            problems.append(
                _problem(manifest, path, pruned.message, pruned.hint, spec=spec)
            )
        else:
            message = "unknown field (the schema has no such property)"
            problems.append(_problem(manifest, path, message, spec=spec))
    return problems


def _problem(
    manifest: Manifest,
    out_path: DataPath,
    message: str,
    hint: str = _PRODUCED,
    *,
    spec: JobSpec | None,
) -> Problem:
    where = format_path(out_path) or "the top level"
    # A schema's message quotes the value, which may be the whole object.
    shown = shortened(message, 300)
    problem = Problem(
        f"the rendered {manifest.kind} '{manifest.name}' is invalid at {where}: {shown}",
        "output-schema",
        path=trace(manifest, out_path, spec),
        hint=hint,
    )
    return patch_at(manifest, out_path, problem)
