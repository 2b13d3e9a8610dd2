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

import yaml

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
