"""PyTorchJob's own fields in the output schema (kgen.check.envelope builds the rest)."""

from __future__ import annotations

from typing import Any

from kgen.check.envelope import INT32, K8S, object_schema
from kgen.kinds.pytorch import KIND
from kgen.kinds.targets import ApiTarget


def fields(target: ApiTarget) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if KIND.supports("elasticPolicy", target):
        out["elasticPolicy"] = _elastic()
    if KIND.supports("nprocPerNode", target):
        out["nprocPerNode"] = {"type": "string"}
    return out


def _elastic() -> dict[str, Any]:
    return object_schema(
        {
            "minReplicas": INT32,
            "maxReplicas": INT32,
            "rdzvBackend": {"enum": ["c10d", "etcd", "etcd-v2"]},
            "rdzvPort": INT32,
            "rdzvHost": {"type": "string"},
            "rdzvId": {"type": "string"},
            "rdzvConf": {
                "type": "array",
                "items": object_schema(
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
