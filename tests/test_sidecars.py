"""A sidecar under `containers:` keeps its pod Running after the trainer exits, so the
job never succeeds (kubeflow/trainer#1577): a warning at each entry, with the native
sidecar (an init container with `restartPolicy: Always`) as the fix where the
project's Kubernetes has it (kgen.rules.sidecars)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import RunKgen

Project = Callable[..., Path]

JOB = """
    framework: pytorch
    image: repo/train:1.0
    resources: {requests: {cpu: "1", memory: 1Gi}, limits: {memory: 1Gi}}
    volumes:
      - {name: logs, emptyDir: {}, mountPath: /var/log/train}
    containers:
      - name: log-shipper
        image: repo/fluent-bit:3.0.7
        volumeMounts: [{name: logs, mountPath: /var/log/train, readOnly: true}]
    roles:
      master: {replicas: 1}
"""
MESSAGE = (
    "sidecar 'log-shipper' runs beside the trainer: the pod does not finish while it"
    " runs, so the job cannot succeed until it exits (sidecar-blocks-completion)"
)
# The default target, v1, is training-operator 1.7's CRD, whose pod template
# (Kubernetes 1.27) prunes an init container's restartPolicy: the hint says so, or
# following it turns the warning into an output-schema error.
NATIVE_HINT = (
    "    hint: write it under initContainers with `restartPolicy: Always` (a native"
    " sidecar: Kubernetes 1.29+, and a target whose CRD keeps it, training-operator-1.8"
    " or later or mpi-operator, not v1), which ends with the pod, or make it exit when"
    " the trainer does\n"
)


def test_a_plain_sidecar_warns_at_its_entry_and_fails_strict(
    project: Project, run_kgen: RunKgen
):
    root = project({"jobs/train.yaml": JOB})
    expected = (
        f"jobs/train.yaml:7:5: warning: {MESSAGE}\n{NATIVE_HINT}"
        "kgen: 1 warning in 1 file\n"
    )
    lenient = run_kgen("validate", cwd=root)
    assert (lenient.code, lenient.out + lenient.err) == (
        0,
        expected + "kgen: 1 job in 1 environment (1 render): valid\n",
    )
    strict = run_kgen("validate", "--strict", cwd=root)
    assert (strict.code, strict.out + strict.err) == (1, expected)


def test_a_native_sidecar_is_clean(project: Project, run_kgen: RunKgen):
    native = JOB.replace("    containers:\n", "    initContainers:\n").replace(
        "image: repo/fluent-bit:3.0.7\n",
        "image: repo/fluent-bit:3.0.7\n        restartPolicy: Always\n",
    )
    # On a release whose CRD keeps an init container's restartPolicy (v1's, the 1.7
    # line's, has Kubernetes 1.27's pod template, which has none).
    release = {"overlays/v1.yaml": "target: training-operator-1.9\n"}
    root = project({"jobs/train.yaml": native, **release})
    result = run_kgen("validate", "--strict", cwd=root)
    assert result.code == 0, result
    assert "sidecar-blocks-completion" not in result.out + result.err


def test_role_and_overlay_sidecars_warn_where_they_are_written_once_each(
    project: Project, run_kgen: RunKgen
):
    job = (
        JOB
        + """
      worker:
        replicas: 2
        containers:
          - {name: log-shipper, args: [--verbose]}
          - {name: profiler, image: "repo/profiler:1.0"}
    """
    )
    overlay = """
        target: v1
        patch:
          containers:
            - {name: proxy, image: "repo/proxy:1.0"}
    """
    root = project({"jobs/train.yaml": job, "overlays/v1.yaml": overlay})
    result = run_kgen("validate", "--strict", cwd=root)
    out = result.out + result.err
    # The worker's log-shipper merges over the job's by name: one sidecar, one warning.
    assert out.count("sidecar-blocks-completion") == 3, out
    assert f"jobs/train.yaml:7:5: warning: {MESSAGE}\n" in out
    assert "jobs/train.yaml:17:9: warning: sidecar 'profiler' runs" in out
    assert "overlays/v1.yaml:4:7: warning: sidecar 'proxy' runs" in out
    assert result.code == 1


@pytest.mark.parametrize(
    "where",
    ["jobs/train.yaml", "kgen.yaml"],
)
def test_lint_ignore_silences_it(where: str, project: Project, run_kgen: RunKgen):
    ignore = (
        "lint:\n  ignore:\n    sidecar-blocks-completion: it exits with the trainer\n"
    )
    files = {"jobs/train.yaml": JOB}
    if where == "kgen.yaml":
        files["kgen.yaml"] = "environments:\n  dev: [v1]\n" + ignore
    else:
        files["jobs/train.yaml"] = JOB + "    " + ignore.replace("\n", "\n    ")
    result = run_kgen("validate", "--strict", cwd=project(files))
    assert result.code == 0, result
    assert "sidecar-blocks-completion" not in result.out + result.err


@pytest.mark.parametrize(
    ("version", "hint"),
    [
        ("1.29", NATIVE_HINT),
        (
            "1.28",
            "    hint: make it exit when the trainer does: native sidecars"
            " (initContainers with `restartPolicy: Always`) are on by default from"
            " Kubernetes 1.29; kgen.yaml kubernetesVersion 1.28 has them only behind"
            " the SidecarContainers feature gate\n",
        ),
        (
            "1.27",
            "    hint: make it exit when the trainer does: native sidecars"
            " (initContainers with `restartPolicy: Always`) need Kubernetes 1.29, and"
            " kgen.yaml kubernetesVersion is 1.27\n",
        ),
    ],
)
def test_the_hint_follows_the_projects_kubernetes_version(
    version: str, hint: str, project: Project, run_kgen: RunKgen
):
    kgen_yaml = f'kubernetesVersion: "{version}"\nenvironments:\n  dev: [v1]\n'
    root = project({"jobs/train.yaml": JOB, "kgen.yaml": kgen_yaml})
    result = run_kgen("validate", cwd=root)
    assert f"jobs/train.yaml:7:5: warning: {MESSAGE}\n{hint}" in result.out + result.err


def test_tensorboard_and_init_containers_are_no_sidecars(
    project: Project, run_kgen: RunKgen
):
    """TensorBoard's Deployment is meant to run for ever, and a plain init container
    ends before the trainer starts: neither is reported."""
    job = """
        framework: pytorch
        image: repo/train:1.0
        resources: {requests: {cpu: "1", memory: 1Gi}, limits: {memory: 1Gi}}
        volumes:
          - name: data
            claim: data
            create: {size: 1Gi, accessModes: [ReadWriteMany]}
            mountPath: /data
        initContainers:
          - {name: fetch, image: "repo/fetch:1.0"}
        tensorboard: {logDir: /data/logs}
        roles:
          master: {replicas: 1}
    """
    result = run_kgen("validate", "--strict", cwd=project({"jobs/train.yaml": job}))
    assert result.code == 0, result
    built = run_kgen("build", cwd=project({"jobs/train.yaml": job}))
    assert built.code == 0, built
