"""Environments on several clusters (argocd.destinationServers, flux.kubeConfigs), and
two environments that would deploy one object into one namespace of one cluster: an
error, since each environment's Application (or Kustomization) would own it."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import RunKgen, write_tree

JOB = """
    framework: pytorch
    image: registry.example.com/train:1
    command: [torchrun, /app/train.py]
    resources:
      requests: {cpu: "1", memory: 1Gi}
      limits: {memory: 1Gi}
    roles:
      master: {replicas: 1}
"""


def _project(root: Path, gitops: str, resources: dict[str, str] | None = None) -> Path:
    root = write_tree(
        root,
        {
            "overlays/v1.yaml": "target: v1\n",
            "jobs/mnist.yaml": JOB,
            **(resources or {}),
        },
    )
    (root / "kgen.yaml").write_text(
        "environments:\n"
        "  blue: {overlays: [v1], namespace: ml}\n"
        "  green: {overlays: [v1], namespace: ml}\n" + gitops + "\n"
    )
    return root


ARGOCD = "argocd: {repoURL: 'https://git.example.com/ml.git'}"
FLUX = "flux: {sourceRef: {name: ml}}"


def test_two_environments_deploying_one_job_into_one_namespace_fail(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    root = _project(tmp_path, ARGOCD)
    result = run_kgen("argocd", cwd=root)
    assert result.code == 1, result
    assert result.err == (
        "kgen.yaml:3:3: error: environments 'blue' and 'green' both deploy PyTorchJob"
        " 'mnist' into namespace 'ml' of one cluster: their Applications would both"
        " own it, each taking it from the other at every sync (gitops-destination)\n"
        "    hint: if 'green' is on another cluster, say which:"
        " argocd.destinationServers: {green: ...} in kgen.yaml; else give it a"
        " namespace of its own\n"
        "kgen: 1 error in 1 file\n"
    )
    assert not (root / "argocd").exists()


def test_an_environment_on_another_cluster_deploys_there(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    root = _project(
        tmp_path,
        "argocd: {repoURL: 'https://git.example.com/ml.git',"
        " destinationServers: {green: 'https://green.example.internal:6443'}}",
    )
    result = run_kgen("argocd", cwd=root)
    assert result.code == 0, result
    blue = yaml.safe_load((root / "argocd/blue.application.yaml").read_text())
    green = yaml.safe_load((root / "argocd/green.application.yaml").read_text())
    assert blue["spec"]["destination"] == {
        "server": "https://kubernetes.default.svc",
        "namespace": "ml",
    }
    assert green["spec"]["destination"] == {
        "server": "https://green.example.internal:6443",
        "namespace": "ml",
    }


def test_an_application_set_carries_each_environments_cluster(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    root = _project(
        tmp_path,
        "argocd: {repoURL: 'https://git.example.com/ml.git', mode: applicationset,"
        " destinationServers: {green: 'https://green.example.internal:6443'}}",
    )
    assert run_kgen("argocd", cwd=root).code == 0
    body = yaml.safe_load((root / "argocd/applicationset.yaml").read_text())
    elements = body["spec"]["generators"][0]["list"]["elements"]
    assert [e["server"] for e in elements] == [
        "https://kubernetes.default.svc",
        "https://green.example.internal:6443",
    ]
    assert body["spec"]["template"]["spec"]["destination"]["server"] == "{{server}}"


def test_a_cluster_named_for_no_environment_is_an_error(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    root = _project(
        tmp_path,
        "argocd: {repoURL: 'https://git.example.com/ml.git',"
        " destinationServers: {grene: 'https://green.example.internal:6443'}}",
    )
    result = run_kgen("argocd", cwd=root)
    assert result.code == 1, result
    assert "error: 'grene' is not an environment (gitops-destination)" in result.err


def test_flux_applies_an_environment_of_another_cluster_with_its_kubeconfig(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    root = _project(tmp_path, FLUX)
    result = run_kgen("flux", cwd=root)
    assert result.code == 1, result
    assert "their Kustomizations would both own it" in result.err
    assert "flux.kubeConfigs: {green: ...}" in result.err
    root = _project(
        tmp_path,
        "flux: {sourceRef: {name: ml}, kubeConfigs: {green: green-kubeconfig}}",
    )
    assert run_kgen("flux", cwd=root).code == 0
    blue = yaml.safe_load((root / "flux/blue.kustomization.yaml").read_text())
    green = yaml.safe_load((root / "flux/green.kustomization.yaml").read_text())
    assert "kubeConfig" not in blue["spec"]
    assert green["spec"]["kubeConfig"] == {"secretRef": {"name": "green-kubeconfig"}}


def test_a_cluster_scoped_team_object_in_two_namespaces_of_one_cluster_fails(
    tmp_path: Path, run_kgen: RunKgen
) -> None:
    root = _project(
        tmp_path,
        ARGOCD,
        {
            "resources/priority.yaml": """
                apiVersion: scheduling.k8s.io/v1
                kind: PriorityClass
                metadata: {name: training}
                value: 1000
            """,
        },
    )
    (root / "kgen.yaml").write_text(
        (root / "kgen.yaml")
        .read_text()
        .replace(
            "green: {overlays: [v1], namespace: ml}",
            "green: {overlays: [v1], namespace: ml-green}",
        )
    )
    result = run_kgen("argocd", cwd=root)
    assert result.code == 1, result
    assert (
        "environments 'blue' and 'green' both deploy PriorityClass 'training' into one"
        " cluster" in result.err
    )
