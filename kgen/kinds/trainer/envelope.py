"""TrainJob's output schema per trainer release, written from the Go types
(kubeflow/trainer@v2.1.0, @v2.2.1 and @v2.3.0: pkg/apis/trainer/v1alpha1/
trainjob_types.go), with the CEL rules of their kubebuilder XValidation markers in CRD
form (`x-kubernetes-validations`) at the node each marker sits on. kgen.check.cel*
evaluates them; the pod parts resolve against the core definitions.

A TrainJob has no replica specs, so this is the whole `spec` (under "spec") and the
rules of the TrainJob type itself (at the root, where the CRD has them).
"""

from __future__ import annotations

from typing import Any

from kgen.check.envelope import INT32, INT64, K8S, object_schema
from kgen.kinds.targets import ApiTarget
from kgen.kinds.trainer import CONTROLLER, MULTIKUEUE

# The markers on TrainJob (v2.1.0 onwards): the name is an RFC 1035 label.
NAME_RULES = [
    {
        "rule": "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
        "message": "metadata.name must match RFC 1035 DNS label format",
    },
    {
        "rule": "size(self.metadata.name) <= 63",
        "message": "metadata.name must be no more than 63 characters",
    },
]
_STRING = {"type": "string"}
_STRINGS = {"type": "array", "items": _STRING}
_ENV = {"type": "array", "items": {"$ref": f"{K8S}.api.core.v1.EnvVar"}}
_MAP = {"type": "object", "additionalProperties": _STRING}
_META = object_schema({"labels": _MAP, "annotations": _MAP})
_NAMED = object_schema({"name": _STRING}, required=["name"])


def _immutable(target: ApiTarget, old_message: str = "") -> list[dict[str, str]]:
    """`+kubebuilder:validation:XValidation:rule="self == oldSelf"`; v2.1 worded it
    per field, v2.2 made it "field is immutable"."""
    newer = not target.has("trainer.podTemplateOverrides")
    message = "field is immutable" if newer or not old_message else old_message
    return [{"rule": "self == oldSelf", "message": message}]


def fields(target: ApiTarget) -> dict[str, Any]:
    newer = not target.has("trainer.podTemplateOverrides")
    spec: dict[str, Any] = {
        "runtimeRef": _runtime_ref(target),
        "initializer": _initializer(target),
        "trainer": _trainer(target),
    }
    if newer:
        spec["runtimePatches"] = _runtime_patches(target)
        spec["activeDeadlineSeconds"] = {
            **INT64,
            "minimum": 1,
            "x-kubernetes-validations": _immutable(target),
        }
    else:
        spec["podTemplateOverrides"] = {"type": "array", "items": _override(target)}
        spec["labels"] = _MAP
        spec["annotations"] = _MAP
    spec["suspend"] = {"type": "boolean"}
    spec["managedBy"] = {
        "type": "string",
        "x-kubernetes-validations": [
            {
                "rule": f"self in ['{CONTROLLER}', '{MULTIKUEUE}']",
                "message": f"ManagedBy must be {CONTROLLER} or {MULTIKUEUE} if set",
            },
            *_immutable(target, "ManagedBy value is immutable"),
        ],
    }
    return {
        "spec": object_schema(spec, required=["runtimeRef"]),
        "x-kubernetes-validations": NAME_RULES,
    }


def _runtime_ref(target: ApiTarget) -> dict[str, Any]:
    name: dict[str, Any] = {"type": "string", "minLength": 1}
    if target.has("trainer.runtimePatches"):
        name["maxLength"] = 253
    ref = object_schema(
        {"name": name, "apiGroup": _STRING, "kind": _STRING}, required=["name"]
    )
    return {
        **ref,
        "x-kubernetes-validations": _immutable(target, "runtimeRef is immutable"),
    }


def _initializer(target: ApiTarget) -> dict[str, Any]:
    uri: dict[str, Any] = {"type": "string"}
    if target.has("trainer.storageUri.format"):
        uri["maxLength"] = 2048
        uri["x-kubernetes-validations"] = [
            {
                "rule": "self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')",
                "message": "storageUri may be empty, or it must be a valid URI (scheme://...)",
            }
        ]
    source = object_schema(
        {"storageUri": uri, "env": _ENV, "secretRef": object_schema({"name": _STRING})}
    )
    out = object_schema({"dataset": source, "model": source})
    if not target.has("trainer.podTemplateOverrides"):
        out["x-kubernetes-validations"] = _immutable(target)
    return out


def _trainer(target: ApiTarget) -> dict[str, Any]:
    nproc: dict[str, Any] = (
        {"anyOf": [INT32, {"type": "string"}]}
        if target.has("trainer.numProcPerNode.names")
        else INT32
    )
    out = object_schema(
        {
            "image": _STRING,
            "command": _STRINGS,
            "args": _STRINGS,
            "env": _ENV,
            "numNodes": {**INT32, "minimum": 1},
            "resourcesPerNode": {"$ref": f"{K8S}.api.core.v1.ResourceRequirements"},
            "numProcPerNode": nproc,
        }
    )
    if not target.has("trainer.podTemplateOverrides"):
        out["x-kubernetes-validations"] = _immutable(target)
    return out


def _pod_spec(target: ApiTarget) -> dict[str, Any]:
    """PodSpecOverride (v2.1) / PodSpecPatch (v2.2+): what a TrainJob may set on the
    runtime's pods."""
    container: dict[str, Any] = {
        "name": _STRING,
        "env": _ENV,
        "volumeMounts": {
            "type": "array",
            "items": {"$ref": f"{K8S}.api.core.v1.VolumeMount"},
        },
    }
    pod: dict[str, Any] = {
        "serviceAccountName": _STRING,
        "nodeSelector": _MAP,
        "affinity": {"$ref": f"{K8S}.api.core.v1.Affinity"},
        "tolerations": {
            "type": "array",
            "items": {"$ref": f"{K8S}.api.core.v1.Toleration"},
        },
        "volumes": {"type": "array", "items": {"$ref": f"{K8S}.api.core.v1.Volume"}},
        "schedulingGates": {"type": "array", "items": _NAMED},
        "imagePullSecrets": {
            "type": "array",
            "items": object_schema({"name": _STRING}),
        },
    }
    if target.has("trainer.securityContext"):
        container["securityContext"] = {"$ref": f"{K8S}.api.core.v1.SecurityContext"}
        pod["securityContext"] = {"$ref": f"{K8S}.api.core.v1.PodSecurityContext"}
    if target.has("trainer.terminationGracePeriodSeconds"):
        pod["terminationGracePeriodSeconds"] = INT64
    containers = {
        "type": "array",
        "items": object_schema(container, required=["name"]),
    }
    pod["initContainers"] = containers
    pod["containers"] = containers
    return object_schema(pod)


def _override(target: ApiTarget) -> dict[str, Any]:
    return object_schema(
        {
            "targetJobs": {"type": "array", "items": _NAMED},
            "metadata": _META,
            "spec": _pod_spec(target),
        },
        required=["targetJobs"],
    )


def _runtime_patches(target: ApiTarget) -> dict[str, Any]:
    pod = object_schema({"metadata": _META, "spec": _pod_spec(target)})
    job = object_schema(
        {
            "name": {"type": "string", "maxLength": 253},
            "template": object_schema(
                {"metadata": _META, "spec": object_schema({"template": pod})}
            ),
        },
        required=["name"],
    )
    jobset = object_schema(
        {"replicatedJobs": {"type": "array", "maxItems": 100, "items": job}}
    )
    manager = {
        "type": "string",
        "maxLength": 253,
        "x-kubernetes-validations": _immutable(target),
    }
    patch = object_schema(
        {
            "manager": manager,
            "time": _STRING,
            "trainingRuntimeSpec": object_schema(
                {"template": object_schema({"metadata": _META, "spec": jobset})}
            ),
        },
        required=["manager"],
    )
    return {"type": "array", "maxItems": 16, "items": patch}
