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
    for shown in (SECRET, "ghp_abcdef", "AKIAIOSF"):
        assert shown not in result.out + result.err
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


def test_a_wrongly_typed_value_after_a_secrets_flag_is_not_quoted(
    project: Project, run_kgen: RunKgen
):
    deployment = DEPLOYMENT.replace(
        "env: [{name: DB_PASSWORD, value: VALUE}]",
        f"args: [--password, [{SECRET}]]",
    )
    root = _project(project, {"resources/d.yaml": deployment})
    assert _validate(run_kgen, root) == (
        1,
        "resources/d.yaml:12:30: error: invalid Deployment: *** is not of type"
        " 'string', 'null' (invalid-value)\n"
        "kgen: 1 error in 1 file\n",
    )


def test_the_same_value_under_another_name_is_quoted_to_be_found(
    project: Project, run_kgen: RunKgen
):
    configmap = CONFIGMAP.replace("password: VALUE", "colour: [blue]")
    root = _project(project, {"resources/cm.yaml": configmap})
    assert _validate(run_kgen, root) == (
        1,
        "resources/cm.yaml:4:16: error: invalid ConfigMap: [blue] is not of type"
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
        "resources/v.yaml:4:18: error: invalid Vault: *** is not of type 'string'"
        " (invalid-value)\n"
        "kgen: 1 error in 1 file\n",
    )


LEAKY_CONFIGMAP = """
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: cfg
      annotations: {db-password: hunter2secretvalue}
    data:
      token: ghp_abcdefghijklmnopqrstuvwxyz0123456789
      aws: AKIAIOSFODNN7EXAMPLE
      url: https://user:hunter2secretvalue@example.com/x
      password: hunter2secretvalue
"""
HINT = (
    "    hint: keep credentials in a Secret created in the cluster and refer to it by"
    " name (an env variable takes one with `secretKeyRef`, a command or argument as"
    " `$(VAR)`)\n"
)


def test_credentials_in_a_team_object_are_errors_at_their_lines(
    project: Project, run_kgen: RunKgen
):
    deployment = DEPLOYMENT.replace("VALUE", SECRET).replace(
        "image: busybox:1",
        f"image: busybox:1\n              args: [--password, {SECRET}]",
    )
    root = _project(
        project,
        {"resources/cm.yaml": LEAKY_CONFIGMAP, "resources/dev/d.yaml": deployment},
    )
    cm = "resources/cm.yaml"
    assert _validate(run_kgen, root) == (
        1,
        f"{cm}:5:30: error: ConfigMap 'cfg': metadata.annotations.db-password holds a"
        " literal value for db-password, which would land in git and the cluster"
        " (secret-literal)\n"
        + HINT
        + f"{cm}:7:10: error: ConfigMap 'cfg': data.token holds a GitHub token, which"
        " would land in git and the cluster (secret-literal)\n"
        + HINT
        + f"{cm}:8:8: error: ConfigMap 'cfg': data.aws holds an AWS access key ID,"
        " which would land in git and the cluster (secret-literal)\n"
        + HINT
        + f"{cm}:9:8: error: ConfigMap 'cfg': data.url holds a password in a URL,"
        " which would land in git and the cluster (secret-literal)\n"
        + HINT
        + f"{cm}:10:13: error: ConfigMap 'cfg': data.password holds a literal value"
        " for password, which would land in git and the cluster (secret-literal)\n"
        + HINT
        + "resources/dev/d.yaml:12:30: error: Deployment 'd':"
        " spec.template.spec.containers[0].args[1] holds a literal value for"
        " password, which would land in git and the cluster (secret-literal)\n"
        + HINT
        + "resources/dev/d.yaml:13:44: error: Deployment 'd': DB_PASSWORD looks like"
        " a secret, and its literal value would be committed to git"
        " (secret-env-literal)\n"
        "    hint: use `secretKeyRef: {name: <secret>, key: <key>}` instead of"
        " `value`; if DB_PASSWORD is no secret, allow it under kgen.yaml"
        " lint.allowLiterals with a reason\n"
        "kgen: 7 errors in 2 files\n",
    )
    result = run_kgen("build", "-C", str(root))
    assert result.code == 1
    assert result.err.endswith("kgen: 7 errors in 2 files\n")
    for shown in (SECRET, "ghp_abcdef", "AKIAIOSF"):
        assert shown not in result.out + result.err
    assert not (root / "manifests").exists()


def test_fields_named_like_secrets_and_references_are_no_literals(
    project: Project, run_kgen: RunKgen
):
    # topologyKey, imagePullSecrets and a secretKeyRef's `key` are the API's names.
    deployment = DEPLOYMENT.replace(
        "value: VALUE}", "valueFrom: {secretKeyRef: {name: db, key: password}}}"
    ).replace(
        "        spec:\n",
        "        spec:\n"
        "          imagePullSecrets: [{name: registry}]\n"
        "          affinity:\n"
        "            podAntiAffinity:\n"
        "              requiredDuringSchedulingIgnoredDuringExecution:\n"
        "                - topologyKey: kubernetes.io/hostname\n"
        "                  labelSelector: {matchLabels: {a: b}}\n",
    )
    configmap = CONFIGMAP.replace("password: VALUE", "token-ttl: 1h, key-name: main")
    root = _project(
        project, {"resources/d.yaml": deployment, "resources/cm.yaml": configmap}
    )
    assert _validate(run_kgen, root) == (
        0,
        "kgen: 1 job in 1 environment (1 render): valid\n",
    )


def test_the_projects_allowed_literals_allow_a_name_never_a_credential(
    project: Project, run_kgen: RunKgen
):
    configmap = CONFIGMAP.replace(
        "password: VALUE",
        "password: not-a-secret, url: 'https://user:hunter2secretvalue@example.com'",
    )
    root = _project(project, {"resources/cm.yaml": configmap})
    kgen_yaml = root / "kgen.yaml"
    kgen_yaml.write_text(
        kgen_yaml.read_text()
        + "lint:\n  allowLiterals: {password: the test database's}\n"
    )
    assert _validate(run_kgen, root) == (
        1,
        "resources/cm.yaml:4:37: error: ConfigMap 'cfg': data.url holds a password"
        " in a URL, which would land in git and the cluster (secret-literal)\n"
        + HINT
        + "kgen: 1 error in 1 file\n",
    )


def test_a_secret_of_any_group_is_refused(project: Project, run_kgen: RunKgen):
    crd = (
        CRD.replace("vaults.example.com", "secrets.example.com")
        .replace("kind: Vault, plural: vaults", "kind: Secret, plural: secrets")
        .replace("singular: vault, listKind: VaultList", "singular: secret")
    )
    secret = """
        apiVersion: example.com/v1
        kind: Secret
        metadata: {name: s}
        spec: {password: $(FROM_ELSEWHERE)}
    """
    root = _project(project, {"crds/secret.yaml": crd, "resources/s.yaml": secret})
    kgen_yaml = root / "kgen.yaml"
    kgen_yaml.write_text("crds: [crds/secret.yaml]\n" + kgen_yaml.read_text())
    assert _validate(run_kgen, root) == (
        1,
        "resources/s.yaml:2:7: error: a Secret in resources/ would put its values in"
        " git (resource-secret)\n"
        "    hint: create it in the cluster (an External Secret or a sealed secret's"
        " CRD) and refer to it by name\n"
        "kgen: 1 error in 1 file\n",
    )
