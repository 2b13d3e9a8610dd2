"""What `kgen import` names after its input (an environment after the folder a manifest
sits in, a file in resources/ after an object's kind) is a name the imported project
takes: ASCII, as kgen.yaml's environments and the team's kinds must be. str.isalnum()
also takes 'ø', 'Ⅻ' and 'í', and the import wrote a project kgen then refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import RunKgen, write_tree

JOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: t, namespace: default}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: pytorch, image: "registry.example.com/x:1"}]
"""


@pytest.mark.parametrize(
    ("folder", "environment"),
    [("prød", "prd"), ("Ⅻ", "imported"), ("a" * 39 + "_b", "a" * 39)],
)
def test_an_environment_is_named_in_ascii_after_its_folder(
    folder: str, environment: str, tmp_path: Path, run_kgen: RunKgen
):
    write_tree(tmp_path, {f"{folder}/job.yaml": JOB})
    result = run_kgen("import", f"{folder}/job.yaml", "--out", "out", cwd=tmp_path)
    assert result.code == 0, result
    written = yaml.safe_load((tmp_path / "out" / "kgen.yaml").read_text())
    assert list(written["environments"]) == [environment]
    validated = run_kgen("validate", "-C", str(tmp_path / "out"))
    assert validated.code == 0, validated


CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: KIND, plural: widgets, singular: widget}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: example.com/v1
kind: KIND
metadata: {name: w, namespace: default}
---
"""


@pytest.mark.parametrize("kind", ["Wídget", "Widget٣", "W" * 64])
def test_an_object_of_a_kind_no_file_may_be_named_after_is_refused(
    kind: str, tmp_path: Path, run_kgen: RunKgen
):
    write_tree(tmp_path, {"in.yaml": CRD.replace("KIND", kind) + JOB})
    result = run_kgen("import", "in.yaml", "--out", "out", cwd=tmp_path)
    assert result.code == 1, result
    assert result.err.splitlines()[0] == (
        f"in.yaml:16:7: error: cannot import this {kind}: it has no apiVersion, kind"
        " or metadata.name kgen can name a file after (import-unsupported)"
    )
    assert not (tmp_path / "out").exists()
