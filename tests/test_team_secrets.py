"""Credentials in the team's own objects (resources/): held to the secret rules the jobs
are held to (docs/guarantees.md), and never quoted in a message, whatever is wrong with
a value under a secret's name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import RunKgen

KGEN_YAML = """
    environments:
      dev: [v1]
"""
JOB = """
    framework: pytorch
    image: repo/train:1.0
    resources: {requests: {cpu: "1", memory: 1Gi}, limits: {memory: 1Gi}}
    roles:
      master: {replicas: 1}
"""
DEPLOYMENT = """
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: d}
    spec:
      selector: {matchLabels: {a: b}}
      template:
        metadata: {labels: {a: b}}
        spec:
          containers:
            - name: c
              image: busybox:1
              env: [{name: DB_PASSWORD, value: VALUE}]
"""
SECRET = "hunter2secretvalue"

Project = Callable[..., Path]


def _project(project: Project, files: dict[str, str]) -> Path:
    return project(
        {
            "kgen.yaml": KGEN_YAML,
            "overlays/v1.yaml": "target: v1\n",
            "jobs/train.yaml": JOB,
            **files,
        },
        base={},
    )


def _validate(run_kgen: RunKgen, root: Path) -> tuple[int, str]:
    result = run_kgen("validate", "-C", str(root))
    assert SECRET not in result.out + result.err
    return result.code, result.err


CONFIGMAP = """
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: cfg}
    data: {password: VALUE}
"""


def test_a_wrongly_typed_value_under_a_secrets_name_is_described_not_quoted(
    project: Project, run_kgen: RunKgen
):
    listed = f"[{SECRET}]"
    root = _project(
        project,
        {
            "resources/cm.yaml": CONFIGMAP.replace("VALUE", listed),
            "resources/d.yaml": DEPLOYMENT.replace("VALUE", listed),
        },
    )
    assert _validate(run_kgen, root) == (
        1,
        "resources/cm.yaml:4:18: error: invalid ConfigMap: *** is not of type"
        " 'string', 'null' (invalid-value)\n"
        "resources/d.yaml:12:44: error: invalid Deployment: *** is not of type"
        " 'string', 'null' (invalid-value)\n"
        "kgen: 2 errors in 2 files\n",
    )


def test_the_same_value_under_another_name_is_quoted_to_be_found(
    project: Project, run_kgen: RunKgen
):
    configmap = CONFIGMAP.replace("password: VALUE", "colour: [blue]")
    root = _project(project, {"resources/cm.yaml": configmap})
    assert _validate(run_kgen, root) == (
        1,
        "resources/cm.yaml:4:16: error: invalid ConfigMap: ['blue'] is not of type"
        " 'string', 'null' (invalid-value)\n"
        "kgen: 1 error in 1 file\n",
    )


CRD = """
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata: {name: vaults.example.com}
    spec:
      group: example.com
      names: {kind: Vault, plural: vaults, singular: vault, listKind: VaultList}
      scope: Namespaced
      versions:
        - name: v1
          served: true
          storage: true
          schema:
            openAPIV3Schema:
              type: object
              properties:
                apiVersion: {type: string}
                kind: {type: string}
                metadata: {type: object}
                spec:
                  type: object
                  properties:
                    password: {type: string}
"""


def test_a_custom_resources_error_hides_a_secret_too(
    project: Project, run_kgen: RunKgen
):
    vault = f"""
        apiVersion: example.com/v1
        kind: Vault
        metadata: {{name: v}}
        spec: {{password: [{SECRET}]}}
    """
    root = _project(project, {"crds/vault.yaml": CRD, "resources/v.yaml": vault})
    kgen_yaml = root / "kgen.yaml"
    kgen_yaml.write_text("crds: [crds/vault.yaml]\n" + kgen_yaml.read_text())
    assert _validate(run_kgen, root) == (
        1,
        'resources/v.yaml:4:18: error: invalid Vault: *** is not of type "string"'
        " (invalid-value)\n"
        "kgen: 1 error in 1 file\n",
    )
