"""What the API server prunes from a job whose operator's CRD embeds an older pod
template than the cluster's Kubernetes: the fields, what to say of them, and the
targets whose CRD keeps them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any, NamedTuple

from kgen.errors import DataPath
from kgen.kinds import kinds_on
from kgen.kinds.targets import TARGETS, pod_schema_version
from kgen.render.base import Manifest

# Errors of one object against one schema: a user CRD's `allOf` of thousands of
# schemas fails thousands of times for one wrong value.
MAX_ERRORS = 100
# kgen.check.output.job_validator: a job's validator by kind, target and Kubernetes minor.
JobValidator = Callable[[str, str, str], Any]


def pruned_fields(
    manifest: Manifest,
    target: str,
    version: str,
    validator: Any,
    job_validator: JobValidator,
) -> Pruned | None:
    """For a job checked against its release's older pod template: the fields the
    cluster's own Kubernetes has but that template lacks (the API server prunes them
    from the CRD), and what to say of them."""
    newer = unknown_fields(validator.iter_errors(manifest.body)) - unknown_fields(
        job_validator(manifest.kind, target, version).iter_errors(manifest.body)
    )
    if not newer:
        return None
    release = TARGETS[target].release_name
    embedded = TARGETS[target].pod_schema
    message = (
        f"unknown field: the {manifest.kind} CRD of {release} has the pod template of"
        f" Kubernetes {embedded}, which has no such property"
    )
    hint = "the API server prunes it without a word; remove it for this environment in an overlay"
    having = _targets_keeping(manifest, target, version, newer, job_validator)
    if having:
        hint += ", or use a target whose CRD has it: " + ", ".join(having)
    return Pruned(frozenset(newer), message, hint)


def _targets_keeping(
    manifest: Manifest,
    target: str,
    version: str,
    fields: set[DataPath],
    job_validator: JobValidator,
) -> list[str]:
    """The other targets of the same apiVersion whose CRD embeds a newer pod template
    that has every one of `fields` (the error path only: a validator each)."""
    current = TARGETS[target]
    found = []
    for name, other in TARGETS.items():
        embedded = other.pod_schema
        if (
            name == target
            or embedded is None
            or other.api_version != current.api_version
            or current.pod_schema is None
            or _minor(embedded) <= _minor(current.pod_schema)
            or not any(kind.kind == manifest.kind for kind in kinds_on(other))
        ):
            continue
        schema_version = pod_schema_version(name, version)
        validator = job_validator(manifest.kind, name, schema_version)
        if not fields & unknown_fields(validator.iter_errors(manifest.body)):
            found.append(name)
    return found


def _minor(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


class Pruned(NamedTuple):
    paths: frozenset[DataPath]
    message: str
    hint: str


def unknown_fields(errors: Iterable[Any]) -> set[DataPath]:
    """The output paths of the unknown fields among `errors`."""
    found = set()
    for error in islice(errors, MAX_ERRORS):
        if error.validator == "additionalProperties" and isinstance(
            error.instance, dict
        ):
            where = tuple(error.absolute_path)
            schema = error.schema if isinstance(error.schema, dict) else {}
            known = set(schema.get("properties", {}))
            found |= {(*where, key) for key in set(error.instance) - known}
    return found
