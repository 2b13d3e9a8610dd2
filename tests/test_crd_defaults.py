"""What the API server adds to a job from its CRD's schema defaults is already in the
rendered job (kubeflow-api.md §3.2): Argo CD's legacy diff cannot see a CRD default, so a
field defaulted inside a list item (a container's port protocol, a gRPC probe's service)
would keep the job OutOfSync for good (argo-cd#11074). The upstream CRDs
(kubeflow/trainer@v1.9.4:manifests/base/crds) are the oracle here, never read by kgen."""

from __future__ import annotations

import copy
import functools
from typing import Any

import pytest
import yaml

from kgen.kinds import kind_for
from kgen.kinds.targets import TARGETS
from kgen.render.base import Environment
from kgen.render.job import render_job
from tests.conftest import SHARED

CRDS = SHARED / "crds"
pytestmark = pytest.mark.skipif(
    not CRDS.is_dir(), reason="../shared/reference/crds is not present"
)


@functools.cache
def _schema(name: str) -> dict[str, Any]:
    crd = yaml.safe_load((CRDS / name).read_text(encoding="utf-8"))
    schema: dict[str, Any] = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    return schema


def _defaulted(value: Any, schema: dict[str, Any]) -> Any:
    """`value` as the API server stores it: each absent property with a default gets
    it, in every object present (structural defaulting)."""
    if isinstance(value, dict):
        out = dict(value)
        for key, sub in schema.get("properties", {}).items():
            if key not in out and "default" in sub:
                out[key] = copy.deepcopy(sub["default"])
            if key in out:
                out[key] = _defaulted(out[key], sub)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for key in set(out) - set(schema.get("properties", {})):
                out[key] = _defaulted(out[key], extra)
        return out
    if isinstance(value, list) and "items" in schema:
        return [_defaulted(item, schema["items"]) for item in value]
    return value


GRPC_JOB = {
    "name": "probed",
    "image": "x:1",
    "livenessProbe": {"grpc": {"port": 9000}},
    "containers": [
        {
            "name": "side",
            "image": "x:1",
            "ports": [{"containerPort": 8080}],
            "startupProbe": {"grpc": {"port": 8080}},
        }
    ],
}


@pytest.mark.parametrize(
    ("framework", "roles", "crd"),
    [
        ("pytorch", {"master": {"replicas": 1}}, "pytorchjob-v1.yaml"),
        ("tensorflow", {"worker": {"replicas": 2}}, "tfjob-v1.yaml"),
    ],
)
@pytest.mark.parametrize("target", ["v1", "training-operator-1.9"])
def test_crd_defaults_change_nothing_in_the_rendered_job(
    framework: str, roles: dict[str, Any], crd: str, target: str
):
    kind = kind_for(framework, TARGETS[target])
    data = GRPC_JOB | {"framework": framework, "roles": roles}
    spec = kind.model().model_validate(data)
    manifests, problems = render_job(spec, Environment("e", TARGETS[target], "ml"))
    assert not [p for p in problems if p.severity == "error"]
    body = manifests[0].body
    assert _defaulted(body, _schema(crd)) == body
