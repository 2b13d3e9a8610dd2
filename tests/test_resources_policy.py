"""The policy over the team's own objects (resources/, kgen.resources.policy): the pods
of a DaemonSet, Deployment, CronJob, Pod or hand-written PyTorchJob are held to the
same pod-security rules as jobs, errors where the environment's policy forbids them,
at the line of the object's field.

The fields are those the Pod Security admission checks for the baseline level:
kubernetes/kubernetes staging/src/k8s.io/pod-security-admission/policy/
check_hostPathVolumes.go, check_hostNamespaces.go, check_privileged.go (which visits
initContainers, containers and ephemeralContainers), check_hostPorts.go (v1.31.0).
Where each kind keeps its pod template: the core API's types
(kubernetes/api apps/v1/types.go, batch/v1/types.go: CronJobSpec.JobTemplate,
JobSpec.Template, v1.31.0) and, for PyTorchJob, its CRD (kubeflow/trainer
manifests/base/crds/kubeflow.org_pytorchjobs.yaml, v1.9.4: pytorchReplicaSpecs.*.template).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from kgen.resources.policy import _pod_specs
from tests.conftest import REPO, SHARED, RunKgen

KGEN_YAML = """
    policy:
      podSecurity: baseline
    environments:
      dev:
        overlays: [v1]
        policy: {podSecurity: privileged}
      prod: [v1]
      staging:
        overlays: [v1]
        policy:
          forbid: [host-network]
"""
JOB = """
    framework: pytorch
    image: repo/train:1.0
    resources: {requests: {cpu: "1", memory: 1Gi}, limits: {memory: 1Gi}}
    roles:
      master: {replicas: 1}
"""
DAEMONSET = """
    apiVersion: apps/v1
    kind: DaemonSet
    metadata:
      name: node-agent
    spec:
      selector:
        matchLabels: {app: node-agent}
      template:
        metadata:
          labels: {app: node-agent}
        spec:
          containers:
            - name: agent
              image: repo/agent:1.0
              volumeMounts:
                - {name: logs, mountPath: /var/log/pods, readOnly: true}
          volumes:
            - name: logs
              hostPath: {path: /var/log/pods}
"""
PROJECT_POLICY = "by the project's policy (kgen.yaml:2:16)"
FORBIDDEN_HINT = (
    "    hint: no annotation allows it there; keep the object out of this environment"
    " (resources/<env>/ holds one environment's objects), or allow it in kgen.yaml's"
    " policy\n"
)
HOST_PATH = (
    "DaemonSet 'node-agent': volume 'logs' is a hostPath: the pod reads and writes"
    " the node's files"
)

Project = Callable[..., Path]


def _project(project: Project, files: dict[str, str], kgen_yaml: str = KGEN_YAML):
    return project(
        {
            "kgen.yaml": kgen_yaml,
            "overlays/v1.yaml": "target: v1\n",
            "jobs/train.yaml": JOB,
            **files,
        },
        base={},
    )


def test_a_daemonset_with_a_host_path_is_an_error_where_the_policy_forbids_it(
    project: Project, run_kgen: RunKgen
):
    root = _project(project, {"resources/prod/agent.yaml": DAEMONSET})
    result = run_kgen("validate", "-C", str(root))
    assert result.code == 1
    assert result.err == (
        f"resources/prod/agent.yaml:19:11: error: host-path is forbidden"
        f" {PROJECT_POLICY}: {HOST_PATH} (policy-forbidden)\n"
        + FORBIDDEN_HINT
        + "    in environment prod\n"
        "kgen: 1 error in 1 file\n"
    )
    # Nothing is written: the build fails as for a job.
    result = run_kgen("build", "-C", str(root))
    assert result.code == 1
    assert not (root / "manifests").exists()


def test_in_a_relaxed_environment_the_rules_keep_their_severity(
    project: Project, run_kgen: RunKgen
):
    # dev forbids nothing: hostPath is an error as in a job, hostNetwork a warning.
    daemonset = DAEMONSET.replace(
        "        spec:\n          containers:",
        "        spec:\n          hostNetwork: true\n          containers:",
    )
    root = _project(project, {"resources/dev/agent.yaml": daemonset})
    result = run_kgen("validate", "-C", str(root))
    assert result.code == 1
    assert result.err == (
        "resources/dev/agent.yaml:12:20: warning: DaemonSet 'node-agent': hostNetwork"
        " shares the node's network with its pods (host-network)\n"
        "    hint: allow it where needed with the annotation"
        " lint-ignore.kgen.io/host-network on the object and a reason\n"
        "    in environment dev\n"
        f"resources/dev/agent.yaml:20:11: error: {HOST_PATH} (host-path)\n"
        "    hint: use a claim or an emptyDir, or allow it with the annotation"
        " lint-ignore.kgen.io/host-path on the object and a reason\n"
        "    in environment dev\n"
        "kgen: 1 error and 1 warning in 1 file\n"
    )


def test_an_annotation_allows_a_rule_where_the_policy_does_not_forbid_it(
    project: Project, run_kgen: RunKgen
):
    annotated = DAEMONSET.replace(
        "      name: node-agent\n",
        "      name: node-agent\n      annotations:\n"
        "        lint-ignore.kgen.io/host-path: the agent reads the pods' logs\n",
    )
    # In every environment: allowed in dev, refused at its line where forbidden.
    root = _project(project, {"resources/agent.yaml": annotated})
    result = run_kgen("validate", "-C", str(root))
    assert result.code == 1
    assert result.err == (
        f"resources/agent.yaml:6:5: error: host-path is forbidden {PROJECT_POLICY};"
        " the annotation lint-ignore.kgen.io/host-path cannot allow it there"
        " (policy-ignore-refused)\n"
        "    hint: put the object in resources/<env>/ of the environments that allow"
        " it\n"
        "    in environment prod\n"
        f"resources/agent.yaml:21:11: error: host-path is forbidden {PROJECT_POLICY}:"
        f" {HOST_PATH} (policy-forbidden)\n"
        + FORBIDDEN_HINT
        + "    in environment prod\n"
        "kgen: 2 errors in 1 file\n"
    )
    result = run_kgen("validate", "--env", "dev", "-C", str(root))
    assert (result.code, result.err) == (
        0,
        "kgen: 1 job in 1 environment (1 render): valid\n",
    )
    # Only in dev, it builds, and the object keeps its annotation in the output.
    (root / "resources/dev").mkdir()
    (root / "resources/agent.yaml").rename(root / "resources/dev/agent.yaml")
    assert run_kgen("build", "-C", str(root)).code == 0
    copied = (root / "manifests/dev/node-agent.daemonset.yaml").read_text()
    assert "lint-ignore.kgen.io/host-path: the agent reads the pods' logs" in copied


def test_a_cronjob_privileged_container_and_a_pod_on_the_host_network(
    project: Project, run_kgen: RunKgen
):
    cronjob = """
        apiVersion: batch/v1
        kind: CronJob
        metadata:
          name: gc
        spec:
          schedule: "0 3 * * *"
          jobTemplate:
            spec:
              template:
                spec:
                  restartPolicy: Never
                  initContainers:
                    - name: setup
                      image: repo/gc:1.0
                      securityContext:
                        privileged: true
                  containers:
                    - name: gc
                      image: repo/gc:1.0
                      ports:
                        - {containerPort: 8080, hostPort: 8080}
    """
    pod = """
        apiVersion: v1
        kind: Pod
        metadata:
          name: debug
        spec:
          hostNetwork: true
          containers:
            - name: shell
              image: repo/debug:1.0
              securityContext:
                capabilities: {add: [NET_ADMIN, CHOWN]}
    """
    root = _project(
        project, {"resources/staging/gc.yaml": cronjob, "resources/debug.yaml": pod}
    )
    result = run_kgen("validate", "-C", str(root))
    assert result.code == 1
    staging = "in staging by its policy (kgen.yaml:11:16)"
    assert result.err == (
        "resources/debug.yaml:6:16: warning: Pod 'debug': hostNetwork shares the"
        " node's network with its pods (host-network)\n"
        "    hint: allow it where needed with the annotation"
        " lint-ignore.kgen.io/host-network on the object and a reason\n"
        "    in environment dev\n"
        f"resources/debug.yaml:6:16: error: host-network is forbidden {PROJECT_POLICY}:"
        " Pod 'debug': hostNetwork shares the node's network with its pods"
        " (policy-forbidden)\n" + FORBIDDEN_HINT + "    in environment prod\n"
        f"resources/debug.yaml:6:16: error: host-network is forbidden {staging}:"
        " Pod 'debug': hostNetwork shares the node's network with its pods"
        " (policy-forbidden)\n" + FORBIDDEN_HINT + "    in environment staging\n"
        "resources/debug.yaml:11:30: warning: Pod 'debug': capability NET_ADMIN is"
        " beyond the container runtime's default set (added-capabilities)\n"
        "    hint: drop it from capabilities.add, or allow it with the annotation"
        " lint-ignore.kgen.io/added-capabilities on the object and a reason\n"
        "    in environments dev, staging\n"
        "resources/debug.yaml:11:30: error: added-capabilities is forbidden"
        f" {PROJECT_POLICY}: Pod 'debug': capability NET_ADMIN is beyond the"
        " container runtime's default set (policy-forbidden)\n"
        + FORBIDDEN_HINT
        + "    in environment prod\n"
        "resources/staging/gc.yaml:16:29: error: CronJob 'gc': a privileged container"
        " is root on the node (privileged-container)\n"
        "    hint: ask for the device as an extended resource, or allow it with the"
        " annotation lint-ignore.kgen.io/privileged-container on the object and a"
        " reason\n"
        "    in environment staging\n"
        "resources/staging/gc.yaml:21:51: warning: CronJob 'gc': hostPort 8080 binds"
        " the node's port: one such pod per node, reachable from outside the cluster"
        " (host-port)\n"
        "    hint: reach the pod through its own port or a Service, or allow it with"
        " the annotation lint-ignore.kgen.io/host-port on the object and a reason\n"
        "    in environment staging\n"
        "kgen: 4 errors and 3 warnings in 2 files\n"
    )


def test_the_project_lint_ignore_and_policy_allow_work_as_for_jobs(
    project: Project, run_kgen: RunKgen
):
    kgen_yaml = KGEN_YAML.replace(
        "      podSecurity: baseline\n",
        "      podSecurity: baseline\n      allow: {host-path: the node agent}\n"
        "    lint:\n      ignore: {host-path: the node agent reads the pods' logs}\n",
    )
    root = _project(project, {"resources/agent.yaml": DAEMONSET}, kgen_yaml)
    result = run_kgen("validate", "-C", str(root))
    assert (result.code, result.err) == (
        0,
        "kgen: 1 job in 3 environments (3 renders): valid\n",
    )


def test_annotations_kgen_cannot_take_are_errors_at_their_key(
    project: Project, run_kgen: RunKgen
):
    annotated = DAEMONSET.replace(
        "      name: node-agent\n",
        "      name: node-agent\n      annotations:\n"
        "        lint-ignore.kgen.io/image-latest: pinned elsewhere\n"
        '        lint-ignore.kgen.io/host-path: " "\n'
        "        lint-ignore.kgen.io/host-namespaces: NCCL\n",
    )
    root = _project(project, {"resources/dev/agent.yaml": annotated})
    result = run_kgen("validate", "-C", str(root))
    assert result.code == 1
    hint = (
        "    hint: lint-ignore.kgen.io/<rule>: <why the object needs it>, for one of"
        " added-capabilities, host-ipc, host-namespaces, host-network, host-path,"
        " host-pid, host-port, privileged-container\n"
    )
    assert result.err == (
        "resources/dev/agent.yaml:6:5: error: 'image-latest' is no rule kgen checks"
        " on the team's objects, so the annotation would allow nothing"
        " (resource-invalid)\n" + hint + "resources/dev/agent.yaml:7:5: error: the"
        " annotation allowing host-path needs the reason as its value"
        " (resource-invalid)\n" + hint + f"resources/dev/agent.yaml:23:11: error:"
        f" {HOST_PATH} (host-path)\n"
        "    hint: use a claim or an emptyDir, or allow it with the annotation"
        " lint-ignore.kgen.io/host-path on the object and a reason\n"
        "    in environment dev\n"
        "kgen: 3 errors in 1 file\n"
    )


def test_a_hand_written_pytorchjob_is_checked_through_its_replica_templates(
    project: Project, run_kgen: RunKgen
):
    job = """
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata:
          name: smoke
        spec:
          pytorchReplicaSpecs:
            Master:
              replicas: 1
              template:
                spec:
                  hostIPC: true
                  containers:
                    - {name: pytorch, image: "repo/train:1.0"}
    """
    root = _project(
        project,
        {
            "resources/prod/smoke.yaml": job,
            "kgen.yaml": KGEN_YAML + "    crds: [crds/pytorchjob.yaml]\n",
        },
    )
    (root / "crds").mkdir()
    shutil.copy(SHARED / "crds/pytorchjob-v1.yaml", root / "crds/pytorchjob.yaml")
    result = run_kgen("validate", "-C", str(root))
    assert result.code == 1
    assert result.err == (
        "resources/prod/smoke.yaml:11:20: error: host-ipc is forbidden"
        f" {PROJECT_POLICY}: PyTorchJob 'smoke': hostIPC shares the node's shared"
        " memory with its pods (policy-forbidden)\n"
        + FORBIDDEN_HINT
        + "    in environment prod\n"
        "kgen: 1 error in 1 file\n"
    )


@pytest.mark.parametrize(
    ("body", "paths"),
    [
        ({"spec": {"containers": []}}, [("spec",)]),
        (
            {"spec": {"template": {"spec": {"containers": "x"}}}},
            [],
        ),
        (
            {
                "metadata": {"containers": []},
                "spec": {"a": [{"template": {"spec": {"containers": [1]}}}]},
            },
            [("spec", "a", 0, "template", "spec")],
        ),
    ],
)
def test_pods_are_found_by_their_containers_list(body, paths):
    assert [path for _, path in _pod_specs(body)] == paths


def test_the_repository_example_is_allowed_in_dev_and_refused_in_prod(
    project: Project, run_kgen: RunKgen
):
    example = (REPO / "resources/dev-cpu/dataset-cache.yaml").read_text()
    root = _project(project, {"resources/dev/cache.yaml": example})
    result = run_kgen("validate", "-C", str(root))
    assert (result.code, result.err) == (
        0,
        "kgen: 1 job in 3 environments (3 renders): valid\n",
    )
    (root / "resources/dev").rename(root / "resources/prod")
    result = run_kgen("validate", "-C", str(root))
    assert result.code == 1
    assert [ln for ln in result.err.splitlines() if ln.startswith("resources/")] == [
        f"resources/prod/cache.yaml:12:5: error: host-path is forbidden {PROJECT_POLICY};"
        " the annotation lint-ignore.kgen.io/host-path cannot allow it there"
        " (policy-ignore-refused)",
        f"resources/prod/cache.yaml:31:11: error: host-path is forbidden"
        f" {PROJECT_POLICY}: DaemonSet 'dataset-cache': volume 'cache' is a hostPath:"
        " the pod reads and writes the node's files (policy-forbidden)",
    ]


def test_validate_of_a_resources_file_checks_the_environments_it_goes_into(
    project: Project, run_kgen: RunKgen
):
    # What a pull request touches is what `kgen validate PATHS` checks: an object in
    # resources/prod/ brings in prod, one in resources/ every environment.
    root = _project(project, {"resources/prod/agent.yaml": DAEMONSET})
    result = run_kgen("validate", "resources/prod/agent.yaml", cwd=root)
    assert result.code == 1
    assert result.err.startswith(
        "resources/prod/agent.yaml:19:11: error: host-path is forbidden"
    )
    (root / "resources/prod/agent.yaml").rename(root / "resources/agent.yaml")
    result = run_kgen("validate", "resources/agent.yaml", cwd=root)
    assert result.code == 1
    assert [ln for ln in result.err.splitlines() if not ln.startswith(" ")] == [
        f"resources/agent.yaml:19:11: error: {HOST_PATH} (host-path)",
        "resources/agent.yaml:19:11: error: host-path is forbidden by the project's"
        f" policy (kgen.yaml:2:16): {HOST_PATH} (policy-forbidden)",
        "kgen: 2 errors in 1 file",
    ]


_POD = """\
metadata: {labels: {app: a}}
spec:
  hostNetwork: true
  containers: [{name: a, image: "repo/a:1.0"}]
"""


def _indented(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())


@pytest.mark.parametrize(
    ("api", "kind", "spec", "line"),
    [
        ("apps/v1", "Deployment", "selector: {matchLabels: {app: a}}", 9),
        (
            "apps/v1",
            "StatefulSet",
            "selector: {matchLabels: {app: a}}\n  serviceName: a",
            10,
        ),
        ("apps/v1", "ReplicaSet", "selector: {matchLabels: {app: a}}", 9),
        ("batch/v1", "Job", "backoffLimit: 1", 9),
        ("v1", "ReplicationController", "replicas: 1", 9),
    ],
)
def test_every_core_kind_with_a_pod_template_is_checked(
    project: Project, run_kgen: RunKgen, api: str, kind: str, spec: str, line: int
):
    pod = (
        _POD
        if kind != "Job"
        else _POD.replace("  hostNetwork", "  restartPolicy: Never\n  hostNetwork")
    )
    text = (
        f"apiVersion: {api}\nkind: {kind}\nmetadata: {{name: a}}\nspec:\n  {spec}\n"
        f"  template:\n{_indented(pod, 4)}"
    )
    line += kind == "Job"
    root = _project(project, {"resources/prod/a.yaml": text})
    result = run_kgen("validate", "-C", str(root))
    assert result.code == 1, result.err
    assert result.err.splitlines()[0] == (
        f"resources/prod/a.yaml:{line}:20: error: host-network is forbidden"
        f" {PROJECT_POLICY}: {kind} 'a': hostNetwork shares the node's network with"
        " its pods (policy-forbidden)"
    )
