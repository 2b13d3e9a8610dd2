"""A whole number a patch writes as a float (`value: 3.0`) into an integer field is
written as the integer the cluster holds (kgen.patch.integers).

What the cluster holds: kubectl, Argo CD and Flux read a manifest through
sigs.k8s.io/yaml, whose YAMLToJSON decodes `3.0` to a float64 and encodes it with Go's
encoding/json as `3`; and the API server's own schema check takes a whole float for
`type: integer` (k8s.io/kube-openapi pkg/validation/validate/type.go: `isFloatInt`, by
swag.IsFloat64AJSONInteger). Either way the object stored says 3, so an output that
says 3.0 is not what is applied, and `kgen diff` and every tool reading the output
compare a value the cluster never had. A field that takes any number (a quantity) is
left as written; a fraction into an integer field stays the schema error it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kgen.check import core
from kgen.patch.integers import whole_numbers
from kgen.patch.marks import PatchMarks
from kgen.render.base import Manifest
from kgen.spec.patches import ObjectPatch
from tests.conftest import RunKgen
from tests.test_patches import MASTER, _project, _validate

PATCHES = f"""\
  - ops:
      - {{op: add, path: /spec/runPolicy/backoffLimit, value: 3.0}}
      - {{op: add, path: {MASTER}/terminationGracePeriodSeconds, value: 30.0}}
      - op: add
        path: {MASTER}/containers/-
        value:
          name: debug
          image: busybox:1.36
          ports: [{{containerPort: 8080.0}}]
          readinessProbe: {{tcpSocket: {{port: 8080.0}}}}
          resources: {{requests: {{cpu: 2.0}}}}
"""


def _built(root: Path) -> dict[str, Any]:
    return yaml.safe_load((root / "manifests/dev/train.pytorchjob.yaml").read_text())


def test_a_whole_float_is_written_as_the_integer_the_cluster_holds(
    tmp_path: Path, run_kgen: RunKgen
):
    root = _project(tmp_path, PATCHES)
    assert run_kgen("build", cwd=root).code == 0
    text = (root / "manifests/dev/train.pytorchjob.yaml").read_text()
    job = _built(root)
    master = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]
    debug = master["containers"][1]
    found = [
        job["spec"]["runPolicy"]["backoffLimit"],
        master["terminationGracePeriodSeconds"],
        debug["ports"][0]["containerPort"],
        debug["readinessProbe"]["tcpSocket"]["port"],  # int-or-string
    ]
    assert found == [3, 30, 8080, 8080]
    assert all(type(value) is int for value in found)
    # A quantity takes any number: the API server reads 2.0 as it reads 2.
    assert debug["resources"]["requests"]["cpu"] == 2.0
    assert "3.0" not in text and "30.0" not in text and "8080.0" not in text


def test_a_fraction_or_a_number_past_int64_stays_an_error(
    tmp_path: Path, run_kgen: RunKgen
):
    patches = (
        "  - ops:\n"
        "      - {op: add, path: /spec/runPolicy/backoffLimit, value: 2.5}\n"
        f"      - {{op: add, path: {MASTER}/terminationGracePeriodSeconds, value: 1.0e+30}}\n"
    )
    code, output = _validate(run_kgen, _project(tmp_path, patches))
    assert code == 1
    assert output.splitlines()[:2] == [
        "jobs/train.yaml:8:62: error: the rendered PyTorchJob 'train' is invalid at"
        " spec.runPolicy.backoffLimit: 2.5 is not of type 'integer' (output-schema)",
        "jobs/train.yaml:9:110: error: the rendered PyTorchJob 'train' is invalid at"
        " spec.pytorchReplicaSpecs.Master.template.spec.terminationGracePeriodSeconds:"
        " terminationGracePeriodSeconds 1e+30 is out of range: it must be"
        " -9223372036854775808 to 9223372036854775807 (int64) (output-schema)",
    ]


@pytest.mark.parametrize("op", ["copy", "move"])
def test_a_float_a_patch_carries_into_an_integer_field_is_written_as_the_integer(
    tmp_path: Path, run_kgen: RunKgen, op: str
):
    # No patch value is a float, but the op carries the sidecar's cpu (2.0, a
    # quantity, kept as the spec wrote it) into backoffLimit.
    sidecar = '{name: metrics, image: "busybox:1.36", resources: {limits: {cpu: 2.0}}}'
    cpu = f"{MASTER}/containers/1/resources/limits/cpu"
    limit = "/spec/runPolicy/backoffLimit"
    patches = f"  - ops:\n      - {{op: {op}, from: {cpu}, path: {limit}}}\n"
    root = _project(tmp_path, patches, f"patch:\n  containers:\n    - {sidecar}\n")
    assert run_kgen("build", cwd=root).code == 0
    written = _built(root)["spec"]["runPolicy"]["backoffLimit"]
    assert (written, type(written)) == (2, int)


def _service(patches: list[dict[str, Any]], *, spec_failed: bool) -> Any:
    body = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"ports": [{"port": 80.0}]},
    }
    [service] = whole_numbers(
        [Manifest("Service", "web", body, patched=PatchMarks())],
        [ObjectPatch.model_validate(patch) for patch in patches],
        spec_failed=spec_failed,
        target="v1",
        version=core.DEFAULT_KUBERNETES_VERSION,
        crds={},
    )
    port = service.body["spec"]["ports"][0]["port"]
    return port, type(port)


LABEL = {"merge": {"metadata": {"labels": {"tier": "web"}}}}
# `test` writes nothing, but its value is read as any other.
TEST = {"op": "test", "path": "/spec/sessionAffinityConfig", "value": 1.5}


@pytest.mark.parametrize(
    "patches",
    [
        [LABEL, {"merge": {"spec": {"ports": [{"port": 80, "targetPort": 8080.0}]}}}],
        [{"ops": [TEST]}],
        [LABEL, {"ops": [{"op": "copy", "from": "/spec/ports", "path": "/spec/x"}]}],
        [{"ops": [{"op": "move", "from": "/spec/ports", "path": "/spec/x"}]}],
    ],
)
def test_the_objects_are_read_where_a_patch_may_have_written_a_float(
    patches: list[dict[str, Any]],
):
    # A float at any depth of any patch's values, or a copy or a move, which may
    # carry one: the patched objects are read, and their whole floats written as
    # integers wherever they came from.
    assert _service(patches, spec_failed=False) == (80, int)


def test_the_objects_are_not_read_where_no_patch_wrote_a_float():
    # Where no patch wrote one, a float can only be the render's, and a render of a
    # spec that passed its checks holds none in an integer field (wrong-type): the
    # objects are not read (most patches write no float).
    assert _service([LABEL], spec_failed=False) == (80.0, float)
    # After a spec error the render may hold one, which the patched objects' rules
    # may quote: they are read as ever.
    assert _service([LABEL], spec_failed=True) == (80, int)
