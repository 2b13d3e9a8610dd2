"""Policy per environment (kgen.yaml `policy:`, kgen.rules.forbidden): a forbidden rule
is an error there whatever `lint.ignore` says, the ignore is refused at its own line,
and elsewhere the rule keeps its severity and suppressions.

Which pod fields the baseline Pod Security Standard forbids (hostPath volumes, hostPID,
hostIPC, hostNetwork, privileged containers): the "Baseline" table of
https://kubernetes.io/docs/concepts/security/pod-security-standards/ (Kubernetes
website, content/en/docs/concepts/security/pod-security-standards.md, release-1.31), as
enforced by kubernetes/pod-security-admission policy/check_hostPathVolumes.go,
check_hostNamespaces.go and check_privileged.go (tag v0.31.0).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kgen.rules.catalog import RULES
from kgen.spec.env_policy import POD_SECURITY_LEVELS
from tests.conftest import RunKgen

KGEN_YAML = """
    policy:
      podSecurity: baseline
    environments:
      dev:
        overlays: [v1, dev]
        policy: {podSecurity: privileged}
      prod: [v1]
      staging:
        overlays: [v1]
        policy:
          forbid: [host-network, image-latest]
"""
OVERLAYS = {
    "overlays/v1.yaml": "target: v1\n",
    "overlays/dev.yaml": """
        patch:
          lint:
            ignore:
              privileged-container: dev nodes have no RDMA device plugin
    """,
}
JOB = """
    framework: pytorch
    image: repo/train:1.0
    resources: {requests: {cpu: "1", memory: 1Gi}, limits: {memory: 1Gi}}
    hostNetwork: true
    hostPID: true
    securityContext: {privileged: true}
    volumes:
      - name: nvme
        mountPath: /nvme
        hostPath: {path: /mnt/nvme}
    roles:
      master: {replicas: 1}
    lint:
      ignore:
        host-path: the dataset cache lives on the node's NVMe
        host-namespaces: NCCL over the host network
"""
HINT = (
    "    hint: no lint.ignore allows it there; leave it out of this environment"
    " (an overlay may set it to null), or allow it in kgen.yaml's policy\n"
)
REFUSED_HINT = (
    "    hint: ignore it in an overlay only the environments that allow it apply\n"
)

VALID = "1 job in 1 environment (1 render): valid"

Project = Callable[..., Path]


def _project(project: Project, job: str = JOB, kgen_yaml: str = KGEN_YAML) -> Path:
    return project(
        {"kgen.yaml": kgen_yaml, **OVERLAYS, "jobs/train.yaml": job}, base={}
    )


def test_forbidden_rules_are_errors_at_the_pod_field_naming_env_and_policy(
    project: Project, run_kgen: RunKgen
):
    root = _project(project)
    result = run_kgen("validate", "-C", str(root))
    assert result.code == 1
    default = "by the project's policy (kgen.yaml:2:16)"
    staging = "in staging by its policy (kgen.yaml:11:16)"
    assert result.err == (
        f"jobs/train.yaml:4:14: error: host-network is forbidden {default}: hostNetwork"
        " shares the node's network with every pod of the job (policy-forbidden)\n"
        + HINT
        + "    in environment prod\n"
        f"jobs/train.yaml:4:14: error: host-network is forbidden {staging}: hostNetwork"
        " shares the node's network with every pod of the job (policy-forbidden)\n"
        + HINT
        + "    in environment staging\n"
        f"jobs/train.yaml:5:10: error: host-pid is forbidden {default}: hostPID shares"
        " the node's processes with every pod of the job (policy-forbidden)\n"
        + HINT
        + "    in environment prod\n"
        f"jobs/train.yaml:6:31: error: privileged-container is forbidden {default}: a"
        " privileged container is root on the node (policy-forbidden)\n"
        + HINT
        + "    in environment prod\n"
        "jobs/train.yaml:6:31: error: a privileged container is root on the node"
        " (privileged-container)\n"
        "    hint: ask for the device as an extended resource, or allow it with"
        " lint.ignore and a reason\n"
        "    in environment staging\n"
        f"jobs/train.yaml:10:5: error: host-path is forbidden {default}: volume 'nvme'"
        " is a hostPath: the pod reads and writes the node's files (policy-forbidden)\n"
        + HINT
        + "    in environment prod\n"
        f"jobs/train.yaml:15:5: error: host-path is forbidden {default}; lint.ignore"
        " cannot allow it there (policy-ignore-refused)\n"
        + REFUSED_HINT
        + "    in environment prod\n"
        f"jobs/train.yaml:16:5: error: host-network is forbidden {default}; lint.ignore"
        " cannot allow it there (policy-ignore-refused)\n"
        + REFUSED_HINT
        + "    in environment prod\n"
        f"jobs/train.yaml:16:5: error: host-network is forbidden {staging};"
        " lint.ignore cannot allow it there (policy-ignore-refused)\n"
        + REFUSED_HINT
        + "    in environment staging\n"
        f"jobs/train.yaml:16:5: error: host-pid is forbidden {default}; lint.ignore"
        " cannot allow it there (policy-ignore-refused)\n"
        + REFUSED_HINT
        + "    in environment prod\n"
        "kgen: 10 errors in 1 file\n"
    )


def test_an_environment_that_relaxes_keeps_todays_severities_and_ignores(
    project: Project, run_kgen: RunKgen
):
    root = _project(project)
    result = run_kgen("validate", "--env", "dev", "-C", str(root))
    assert (result.code, result.err) == (0, f"kgen: {VALID}\n")
    # Without the job's ignores, dev reports what kgen always did: hostPath and
    # privileged (silenced by the dev overlay) are errors, host namespaces warnings.
    bare = JOB.split("    lint:")[0]
    (root / "jobs/train.yaml").write_text(bare.replace("\n    ", "\n").lstrip())
    result = run_kgen("validate", "--env", "dev", "-C", str(root))
    assert result.code == 1
    assert [ln for ln in result.err.splitlines() if ln.startswith("jobs/")] == [
        "jobs/train.yaml:4:14: warning: hostNetwork shares the node's network with"
        " every pod of the job (host-network)",
        "jobs/train.yaml:5:10: warning: hostPID shares the node's processes with every"
        " pod of the job (host-pid)",
        "jobs/train.yaml:10:5: error: volume 'nvme' is a hostPath: the pod reads and"
        " writes the node's files (host-path)",
    ]


def test_an_ignore_in_an_overlay_is_refused_at_the_overlay_line(
    project: Project, run_kgen: RunKgen
):
    kgen_yaml = KGEN_YAML.replace("prod: [v1]", "prod: [v1, dev]")
    job = JOB.replace("    hostNetwork: true\n    hostPID: true\n", "").split(
        "    lint"
    )[0]
    root = _project(
        project, job.replace("hostPath: {path: /mnt/nvme}", "emptyDir: {}"), kgen_yaml
    )
    result = run_kgen("validate", "--env", "prod", "-C", str(root))
    assert result.code == 1
    assert result.err == (
        "jobs/train.yaml:4:31: error: privileged-container is forbidden by the"
        " project's policy (kgen.yaml:2:16): a privileged container is root on the"
        " node (policy-forbidden)\n"
        + HINT
        + "overlays/dev.yaml:4:7: error: privileged-container is forbidden by the"
        " project's policy (kgen.yaml:2:16); lint.ignore cannot allow it there"
        " (policy-ignore-refused)\n" + REFUSED_HINT + "kgen: 2 errors in 2 files\n"
    )


def test_allow_keeps_a_rule_of_the_level_as_it_was(project: Project, run_kgen: RunKgen):
    job = """
        framework: pytorch
        image: repo/train:1.0
        resources: {requests: {cpu: "1", memory: 1Gi}, limits: {memory: 1Gi}}
        hostIPC: true
        roles:
          master: {replicas: 1}
    """
    allowing = KGEN_YAML.replace(
        "podSecurity: baseline\n",
        "podSecurity: baseline\n      allow: {host-namespaces: NCCL needs them}\n",
    )
    root = _project(project, job, allowing)
    result = run_kgen("validate", "--env", "prod", "-C", str(root))
    assert result.code == 0
    assert result.err == (
        "jobs/train.yaml:4:10: warning: hostIPC shares the node's shared memory with"
        " every pod of the job (host-ipc)\n"
        "    hint: allow it where needed with lint.ignore and a reason\n"
        "kgen: 1 warning in 1 file\n"
        f"kgen: {VALID}\n"
    )


def test_forbid_makes_a_warning_rule_an_error(project: Project, run_kgen: RunKgen):
    job = """
        framework: pytorch
        image: repo/train
        resources: {requests: {cpu: "1", memory: 1Gi}, limits: {memory: 1Gi}}
        roles:
          master: {replicas: 1}
    """
    root = _project(project, job)
    result = run_kgen("validate", "-C", str(root))
    assert result.code == 1
    assert result.err.splitlines()[0::3] == [
        "jobs/train.yaml:2:8: warning: image repo/train has no tag, so what runs"
        " changes over time (image-latest)",
        "jobs/train.yaml:2:8: error: image-latest is forbidden in staging by its"
        " policy (kgen.yaml:11:30): image repo/train has no tag, so what runs changes"
        " over time (policy-forbidden)",
        "kgen: 1 error and 1 warning in 1 file",
    ]


def test_a_project_wide_ignore_never_silences_a_forbidden_rule(
    project: Project, run_kgen: RunKgen
):
    job = JOB.replace("    hostNetwork: true\n    hostPID: true\n", "")
    job = job.replace("    securityContext: {privileged: true}\n", "").split(
        "    lint"
    )[0]
    kgen_yaml = KGEN_YAML + "    lint:\n      ignore: {host-path: our nodes are ours}\n"
    root = _project(project, job, kgen_yaml)
    result = run_kgen("validate", "-C", str(root))
    assert result.code == 1
    assert result.err == (
        "jobs/train.yaml:7:5: error: host-path is forbidden by the project's policy"
        " (kgen.yaml:2:16): volume 'nvme' is a hostPath: the pod reads and writes the"
        " node's files (policy-forbidden)\n" + HINT + "    in environment prod\n"
        "kgen: 1 error in 1 file\n"
    )


def test_a_policy_change_in_kgen_yaml_reaches_a_warm_cache(
    project: Project, run_kgen: RunKgen
):
    job = JOB.replace("    hostNetwork: true\n    hostPID: true\n", "")
    job = job.replace("    securityContext: {privileged: true}\n", "")
    relaxed = KGEN_YAML.replace("podSecurity: baseline", "podSecurity: privileged")
    root = _project(project, job, relaxed)
    assert run_kgen("build", "-C", str(root)).code == 0
    assert run_kgen("build", "--check", "-C", str(root)).code == 0
    (root / "kgen.yaml").write_text(
        (root / "kgen.yaml")
        .read_text()
        .replace("podSecurity: privileged\nenv", "podSecurity: baseline\nenv")
    )
    forbidding = run_kgen("validate", "-C", str(root))
    assert forbidding.code == 1
    assert "host-path is forbidden by the project's policy" in forbidding.err
    (root / "kgen.yaml").write_text(
        (root / "kgen.yaml")
        .read_text()
        .replace("podSecurity: baseline\nenv", "podSecurity: privileged\nenv")
    )
    assert run_kgen("validate", "-C", str(root)).code == 0


def test_host_namespaces_in_lint_ignore_still_silences_all_three(
    project: Project, run_kgen: RunKgen
):
    job = """
        framework: pytorch
        image: repo/train:1.0
        resources: {requests: {cpu: "1", memory: 1Gi}, limits: {memory: 1Gi}}
        hostIPC: true
        hostPID: true
        hostNetwork: true
        roles:
          master: {replicas: 1}
        lint:
          ignore: {host-namespaces: written before the rule was split}
    """
    root = project({"jobs/train.yaml": job})
    assert run_kgen("validate", "-C", str(root)).code == 0
    assert run_kgen("validate", "-C", str(root)).err == f"kgen: {VALID}\n"


def test_baseline_names_rules_kgen_reports_and_each_can_be_forbidden():
    for code in POD_SECURITY_LEVELS["baseline"]:
        assert RULES[code].silenceable, code
    assert POD_SECURITY_LEVELS["privileged"] == ()


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (
            "{forbid: [host-paht]}",
            "kgen.yaml:4:23: error: 'host-paht' is not a kgen rule; did you mean"
            " 'host-path'? (invalid-value)",
        ),
        (
            "{forbid: [gpu-quota]}",
            "kgen.yaml:4:23: error: 'gpu-quota' is always an error: there is nothing"
            " for a policy to forbid (invalid-value)",
        ),
        (
            "{forbid: [claim-undeclared]}",
            "kgen.yaml:4:23: error: 'claim-undeclared' is checked across jobs; a"
            " policy forbids what one job does in an environment (invalid-value)",
        ),
    ],
)
def test_a_policy_naming_what_it_cannot_forbid_is_located(
    policy: str, message: str, project: Project, run_kgen: RunKgen
):
    kgen_yaml = f"""
        environments:
          dev:
            overlays: [v1]
            policy: {policy}
    """
    root = project({"kgen.yaml": kgen_yaml, "jobs/train.yaml": JOB})
    result = run_kgen("validate", "-C", str(root))
    assert result.code == 1
    assert result.err.splitlines()[0] == message


def test_host_ports_and_added_capabilities_warn_and_baseline_forbids_them(
    project: Project, run_kgen: RunKgen
):
    job = """
        framework: pytorch
        image: repo/train:1.0
        resources: {requests: {cpu: "1", memory: 1Gi}, limits: {memory: 1Gi}}
        ports:
          - {name: metrics, containerPort: 9090, hostPort: 9090}
        securityContext:
          capabilities: {add: [CHOWN, IPC_LOCK, CAP_CHOWN]}
        containers:
          - name: exporter
            image: repo/exp:1
            ports: [{containerPort: 9401, hostPort: 19401}]
        roles:
          master: {replicas: 1}
          worker:
            replicas: 1
            securityContext: {capabilities: {add: [SYS_PTRACE]}}
        lint:
          ignore:
            sidecar-blocks-completion: the exporter exits with the trainer
    """
    root = _project(project, job)
    dev = run_kgen("validate", "--env", "dev", "-C", str(root))
    assert dev.code == 0
    assert [ln for ln in dev.err.splitlines() if ln.startswith("jobs/")] == [
        "jobs/train.yaml:5:52: warning: hostPort 9090 binds the node's port: one such"
        " pod per node, reachable from outside the cluster (host-port)",
        "jobs/train.yaml:7:31: warning: capability IPC_LOCK is beyond the container"
        " runtime's default set (added-capabilities)",
        # Compared as written, as the admission does: CAP_CHOWN is not CHOWN.
        "jobs/train.yaml:7:41: warning: capability CAP_CHOWN is beyond the container"
        " runtime's default set (added-capabilities)",
        "jobs/train.yaml:11:45: warning: hostPort 19401 binds the node's port: one"
        " such pod per node, reachable from outside the cluster (host-port)",
        "jobs/train.yaml:16:44: warning: capability SYS_PTRACE is beyond the"
        " container runtime's default set (added-capabilities)",
    ]
    prod = run_kgen("validate", "--env", "prod", "-C", str(root))
    assert prod.code == 1
    default = "by the project's policy (kgen.yaml:2:16)"
    assert [ln for ln in prod.err.splitlines() if ln.startswith("jobs/")] == [
        f"jobs/train.yaml:5:52: error: host-port is forbidden {default}: hostPort 9090"
        " binds the node's port: one such pod per node, reachable from outside the"
        " cluster (policy-forbidden)",
        f"jobs/train.yaml:7:31: error: added-capabilities is forbidden {default}:"
        " capability IPC_LOCK is beyond the container runtime's default set"
        " (policy-forbidden)",
        f"jobs/train.yaml:7:41: error: added-capabilities is forbidden {default}:"
        " capability CAP_CHOWN is beyond the container runtime's default set"
        " (policy-forbidden)",
        f"jobs/train.yaml:11:45: error: host-port is forbidden {default}: hostPort"
        " 19401 binds the node's port: one such pod per node, reachable from outside"
        " the cluster (policy-forbidden)",
        f"jobs/train.yaml:16:44: error: added-capabilities is forbidden {default}:"
        " capability SYS_PTRACE is beyond the container runtime's default set"
        " (policy-forbidden)",
    ]
