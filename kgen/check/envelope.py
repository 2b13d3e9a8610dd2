"""JSON Schemas of the PyTorchJob and TFJob envelope per API target (kubeflow-api.md §2).

Written from the API reference, not copied from any CRD. The pod template inside is the
core `PodTemplateSpec`, resolved against kubernetes-validate's definitions when a
validator is built; `make schemas` writes these to schemas/ for anyone to read.
"""

from __future__ import annotations

from typing import Any

from kgen.targets import TARGETS, ApiTarget

K8S = "#/$defs/io.k8s"
INT32 = {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1}
RESTART = {"enum": ["Always", "OnFailure", "Never", "ExitCode"]}
CLEAN = {"enum": ["None", "Running", "All"]}
ROLES = {
    "PyTorchJob": ["Master", "Worker"],
    "TFJob": ["Chief", "Master", "Worker", "PS", "Evaluator"],
}
REPLICA_KEY = {"PyTorchJob": "pytorchReplicaSpecs", "TFJob": "tfReplicaSpecs"}


def _object(
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
    return _object(
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
        fields |= {"activeDeadlineSeconds": {"type": "integer"}, "backoffLimit": INT32}
    return fields


def _scheduling() -> dict[str, Any]:
    quantity = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    return _object(
        {
            "minAvailable": INT32,
            "queue": {"type": "string"},
            "minResources": {"type": "object", "additionalProperties": quantity},
            "priorityClass": {"type": "string"},
            "scheduleTimeoutSeconds": INT32,
        }
    )


def _elastic() -> dict[str, Any]:
    return _object(
        {
            "minReplicas": INT32,
            "maxReplicas": INT32,
            "rdzvBackend": {"enum": ["c10d", "etcd", "etcd-v2"]},
            "rdzvPort": INT32,
            "rdzvHost": {"type": "string"},
            "rdzvId": {"type": "string"},
            "rdzvConf": {
                "type": "array",
                "items": _object(
                    {"key": {"type": "string"}, "value": {"type": "string"}}
                ),
            },
            "standalone": {"type": "boolean"},
            "nProcPerNode": INT32,
            "maxRestarts": INT32,
            "metrics": {
                "type": "array",
                "items": {"$ref": f"{K8S}.api.autoscaling.v2.MetricSpec"},
            },
        }
    )


def envelope(kind: str, target: ApiTarget) -> dict[str, Any]:
    """The schema of `kind` as `target` accepts it."""
    spec: dict[str, Any] = {}
    run_fields = _run_fields(target)
    if target.run_fields_at == "runPolicy":
        policy = {
            **run_fields,
            "schedulingPolicy": _scheduling(),
            "suspend": {"type": "boolean"},
        }
        policy["managedBy"] = {
            "enum": ["kubeflow.org/training-operator", "kueue.x-k8s.io/multikueue"]
        }
        spec["runPolicy"] = _object(policy)
    else:
        spec |= run_fields
    if kind == "PyTorchJob" and "elasticPolicy" in target.supports:
        spec["elasticPolicy"] = _elastic()
    if kind == "PyTorchJob" and "nprocPerNode" in target.supports:
        spec["nprocPerNode"] = {"type": "string"}
    if kind == "TFJob" and "successPolicy" in target.supports:
        spec["successPolicy"] = {"enum": ["", "AllWorkers"]}
        spec["enableDynamicWorker"] = {"type": "boolean"}
    roles = {role: _replica_spec() for role in ROLES[kind]}
    spec[REPLICA_KEY[kind]] = {**_object(roles), "minProperties": 1}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{kind} ({target.description})",
        "$comment": "#/$defs/io.k8s.* references resolve against kubernetes-validate's strict _definitions.json for kgen.yaml kubernetesVersion.",
        **_object(
            {
                "apiVersion": {"const": target.api_version},
                "kind": {"const": kind},
                "metadata": {"$ref": f"{K8S}.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
                "spec": _object(spec, required=[REPLICA_KEY[kind]]),
            },
            required=["apiVersion", "kind", "metadata", "spec"],
        ),
    }


def all_envelopes() -> dict[str, dict[str, Any]]:
    """File name under schemas/ to schema, for every kind and target."""
    return {
        f"{kind.lower()}-{name}.schema.json": envelope(kind, target)
        for kind in ROLES
        for name, target in TARGETS.items()
    }
