"""JSON Schemas of each job kind's envelope per API target (kubeflow-api.md §2): what
every kind shares here, each kind's own fields from the kind (`Kind.envelope`).

Written from the API reference, not copied from any CRD. The pod template inside is the
core `PodTemplateSpec`, resolved against kubernetes-validate's definitions when a
validator is built; `make schemas` writes these to schemas/ for anyone to read.
"""

from __future__ import annotations

from typing import Any

from kgen.kinds import ALL_KINDS
from kgen.kinds.base import Kind
from kgen.kinds.targets import TARGETS, ApiTarget

K8S = "#/$defs/io.k8s"
INT32 = {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1}
INT64 = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}
RESTART = {"enum": ["Always", "OnFailure", "Never", "ExitCode"]}
CLEAN = {"enum": ["None", "Running", "All"]}


def object_schema(
    properties: dict[str, Any], *, required: list[str] | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        out["required"] = required
    return out


def _replica_spec() -> dict[str, Any]:
    return object_schema(
        {
            "replicas": {**INT32, "minimum": 0},
            "restartPolicy": RESTART,
            "template": {"$ref": f"{K8S}.api.core.v1.PodTemplateSpec"},
        },
        required=["template"],
    )


def _run_fields(target: ApiTarget) -> dict[str, Any]:
    fields: dict[str, Any] = {"cleanPodPolicy": CLEAN, "ttlSecondsAfterFinished": INT32}
    if "runPolicy.backoffLimit" in target.supports:
        fields |= {"activeDeadlineSeconds": INT64, "backoffLimit": INT32}
    return fields


def _scheduling(target: ApiTarget) -> dict[str, Any]:
    quantity = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    fields: dict[str, Any] = {
        "minAvailable": INT32,
        "queue": {"type": "string"},
        "minResources": {"type": "object", "additionalProperties": quantity},
        "priorityClass": {"type": "string"},
    }
    if target.has("runPolicy.schedulingPolicy.scheduleTimeoutSeconds"):
        fields["scheduleTimeoutSeconds"] = INT32
    return object_schema(fields)


def envelope(kind: Kind, target: ApiTarget) -> dict[str, Any]:
    """The schema of `kind` as `target` accepts it: the run fields where the target
    keeps them, the kind's own fields, and its replica specs. A kind without replica
    specs (TrainJob) gives its whole `spec`, and its own rules at the root."""
    if not kind.replica_key:
        own = kind.envelope(target)
        return _document(kind, target, own.pop("spec"), own)
    spec: dict[str, Any] = {}
    run_fields = _run_fields(target)
    if target.run_fields_at == "runPolicy":
        # Each field only from the release whose CRD has it (kgen.kinds.targets).
        policy = {**run_fields, "schedulingPolicy": _scheduling(target)}
        if target.has("runPolicy.suspend"):
            policy["suspend"] = {"type": "boolean"}
        if target.has("runPolicy.managedBy"):
            policy["managedBy"] = {
                "enum": ["kubeflow.org/training-operator", "kueue.x-k8s.io/multikueue"]
            }
        spec["runPolicy"] = object_schema(policy)
    else:
        spec |= run_fields
    spec |= kind.envelope(target)
    roles = {role: _replica_spec() for role in kind.api_roles}
    spec[kind.replica_key] = {**object_schema(roles), "minProperties": 1}
    return _document(kind, target, object_schema(spec, required=[kind.replica_key]))


def _document(
    kind: Kind,
    target: ApiTarget,
    spec: dict[str, Any],
    root: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{kind.kind} ({target.description})",
        "$comment": "#/$defs/io.k8s.* references resolve against kubernetes-validate's strict _definitions.json for kgen.yaml kubernetesVersion.",
        **object_schema(
            {
                "apiVersion": {"const": target.api_version},
                "kind": {"const": kind.kind},
                "metadata": {"$ref": f"{K8S}.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
                "spec": spec,
            },
            required=["apiVersion", "kind", "metadata", "spec"],
        ),
        **(root or {}),
    }


def all_envelopes() -> dict[str, tuple[dict[str, Any], str]]:
    """File name under schemas/ to schema and its target, for every kind and the
    targets it is on."""
    return {
        f"{kind.kind.lower()}-{name}.schema.json": (envelope(kind, target), name)
        for kind in ALL_KINDS
        for name, target in TARGETS.items()
        if name in kind.targets
    }
