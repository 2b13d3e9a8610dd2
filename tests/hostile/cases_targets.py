"""Hostile inputs against operator-release targets (issue 16), and the defects a new
user found: each case the exact output and exit code users rely on."""

from __future__ import annotations

from tests.hostile.case import VALID_JOB, Case, job

_NO_ROLES_PYTORCH = "framework: pytorch\nimage: docker.io/x/y:1.0\nroles: {}\n"
_NO_ROLES_TF = "framework: tensorflow\nimage: docker.io/x/y:1.0\nroles: {}\n"
_DELETE_LAST_ROLE = "target: v1\npatch:\n  roles:\n    master: null\n    worker: null\n"
_TO16 = "target: training-operator-1.6\n"
_TO15 = "target: training-operator-1.5\n"

_BIG_TF = """\
framework: tensorflow
image: docker.io/x/y:1.0
roles: {chief: {replicas: 1}, worker: {replicas: 10000}, ps: {replicas: 10000}}
"""
_CLAIM_CREATOR_BROKEN = """\
framework: pytorch
image: docker.io/x/y:1.0
roles: {master: {replicas: 1}}
volumes:
  - {name: data, claim: data, mountPath: /data, create: {size: 1Gi}}
oops: [
"""
_CLAIM_USER = VALID_JOB + "volumes:\n  - {name: data, claim: data, mountPath: /data}\n"
_KUBEFLOW_BOARD = (
    VALID_JOB
    + "volumes:\n  - {name: logs, claim: logs, mountPath: /logs,"
    + " create: {size: 1Gi, accessModes: [ReadWriteMany]}}\n"
    + "tensorboard: {kind: kubeflow, logDir: /logs, serviceType: NodePort}\n"
)
_SELECTIVE = """\
environments:
  dev:
    overlays: [v1]
    jobs: {names: [other]}
lint:
  ignore:
    resources-missing: each case shows one problem; its specs are minimal
"""
_CONTENT_HASH = """\
jobNames: content-hash
environments:
  dev:
    overlays: [v1]
    namespace: dev
lint:
  ignore:
    resources-missing: each case shows one problem; its specs are minimal
"""
_WARNED = VALID_JOB.replace("train:1.0", "train")

CASES: dict[str, Case] = {
    # --- a job without roles: located errors (exit 1) from every command, never exit 3
    "pytorch-job-without-roles": Case(
        job(_NO_ROLES_PYTORCH), about="`roles: {}` exited 3 from every command"
    ),
    "tf-job-without-roles": Case(
        job(_NO_ROLES_TF), about="`roles: {}` exited 3 from every command"
    ),
    "job-without-roles-rendered": Case(
        job(_NO_ROLES_PYTORCH), args=("render", "train", "--env", "dev")
    ),
    "job-without-roles-explained": Case(
        job(_NO_ROLES_PYTORCH), args=("explain", "train", "--env", "dev")
    ),
    "job-without-roles-listed": Case(job(_NO_ROLES_TF), args=("list",)),
    "job-without-roles-built": Case(job(_NO_ROLES_TF), args=("build",)),
    "overlay-deletes-the-last-role": Case(
        {"overlays/v1.yaml": _DELETE_LAST_ROLE},
        about="an overlay that deletes every role exited 3",
    ),
    # --- release targets: a field the release's CRD lacks names the release
    "nproc-per-node-on-training-operator-1.6": Case(
        {
            "jobs/train.yaml": VALID_JOB + "nprocPerNode: '2'\n",
            "overlays/v1.yaml": _TO16,
        },
        about="the 1.6 CRDs have no spec.nprocPerNode: pruned, OutOfSync for good",
    ),
    "schedule-timeout-on-training-operator-1.5": Case(
        {
            "jobs/train.yaml": VALID_JOB
            + "runPolicy: {schedulingPolicy: {scheduleTimeoutSeconds: 60}}\n",
            "overlays/v1.yaml": _TO15,
        },
        about="scheduleTimeoutSeconds arrived in 1.6; the hint shows its full path",
    ),
    "training-operator-1.6-renders-no-suspend": Case(
        {"overlays/v1.yaml": _TO16},
        args=("render", "train", "--env", "dev"),
        expected_exit=0,
        about="runPolicy.suspend is emitted only where the CRD has it (1.7+)",
    ),
    "worker-only-on-training-operator-1.3": Case(
        {
            "jobs/train.yaml": VALID_JOB.replace("  master: {replicas: 1}\n", "")
            + "elasticPolicy: {minReplicas: 1, maxReplicas: 2}\n",
            "overlays/v1.yaml": "target: training-operator-1.3\n",
        },
    ),
    # --- kgen explain stays linear in replicas
    "explain-tfjob-10000-workers-and-10000-ps": Case(
        job(_BIG_TF),
        args=("explain", "train", "--env", "dev", "roles"),
        expected_exit=0,
        about="TF_CONFIG per replica listed every host: 136 MB at 1,000+1,000",
    ),
    "explain-contract-of-10000-workers-and-10000-ps": Case(
        job(_BIG_TF),
        args=("explain", "train", "--env", "dev"),
        expected_exit=0,
    ),
    # --- defects found by a new user
    "broken-spec-does-not-orphan-its-claim": Case(
        {"jobs/a.yaml": _CLAIM_CREATOR_BROKEN, "jobs/train.yaml": _CLAIM_USER},
        about="a false claim-undeclared on the valid job was listed first",
    ),
    "replicas-three-has-no-quotes-to-remove": Case(
        job(VALID_JOB.replace("worker: {replicas: 2}", "worker: {replicas: three}"))
    ),
    "replicas-quoted-number": Case(
        job(VALID_JOB.replace("worker: {replicas: 2}", 'worker: {replicas: "2"}'))
    ),
    "master-replicas-with-a-leading-zero": Case(
        job(VALID_JOB.replace("master: {replicas: 1}", "master: {replicas: 0755}")),
        about="0755 was reported as 'the number 755': messages quote what was typed",
    ),
    "overlay-master-replicas-with-a-leading-zero": Case(
        {
            "overlays/v1.yaml": "target: v1\npatch:\n  roles: {master: {replicas: 0755}}\n"
        },
        about="quoted as written in an overlay too",
    ),
    "label-value-in-hex": Case(
        job(VALID_JOB + "labels: {build: 0x1F}\n"),
        about="messages quote 0x1F, not 31",
    ),
    "gpu-under-resources-limits": Case(
        job(VALID_JOB + "resources:\n  limits: {nvidia.com/gpu: 1}\n"),
        about="the hint listed only cpu, memory and ephemeral-storage",
    ),
    "kubeflow-tensorboard-service-type": Case(
        job(_KUBEFLOW_BOARD), about="serviceType was dropped without a word"
    ),
    "render-a-job-the-environment-does-not-select": Case(
        {"kgen.yaml": _SELECTIVE},
        args=("render", "train", "--env", "dev"),
        expected_exit=2,
        about="printed nothing and exited 0",
    ),
    "build-diff-without-check": Case(
        {}, args=("build", "--diff"), expected_exit=2, about="silently built"
    ),
    "validate-a-path-that-does-not-exist": Case(
        {}, args=("validate", "jobs/does-not-exist.yaml"), about="exited 0"
    ),
    "validate-a-path-outside-the-project": Case(
        {}, args=("validate", "../outside/secret.yaml"), about="exited 0"
    ),
    "validate-a-refused-file-name": Case(
        {"jobs/bad\x1b[2J.yaml": "framework: ["},
        args=("validate", "jobs/bad\x1b[2J.yaml"),
        about="the full run refused the name; validate PATHS exited 0",
    ),
    "explain-a-field-an-overlay-deleted": Case(
        {
            "jobs/train.yaml": VALID_JOB + "runPolicy: {backoffLimit: 3}\n",
            "overlays/v1.yaml": "target: v1\npatch:\n  runPolicy:\n    backoffLimit: null\n",
        },
        args=("explain", "train", "--env", "dev", "runPolicy.backoffLimit"),
        expected_exit=2,
        about="said only 'has no field'",
    ),
    "list-leaves-lint-warnings-to-validate": Case(
        job(_WARNED), args=("list",), expected_exit=0
    ),
    "explain-leaves-lint-warnings-to-validate": Case(
        job(_WARNED),
        args=("explain", "train", "--env", "dev", "image"),
        expected_exit=0,
    ),
    # --- host names in the env contract use the job object's real name
    "explain-uses-the-content-hash-name": Case(
        {"kgen.yaml": _CONTENT_HASH},
        args=("explain", "train", "--env", "dev"),
        expected_exit=0,
        about="MASTER_ADDR dropped the content-hash suffix",
    ),
    "explain-uses-the-run-id-name": Case(
        {
            "jobs/train.yaml": "framework: tensorflow\nimage: docker.io/x/y:1.0\n"
            "runId: r7\nroles: {worker: {replicas: 2}}\n"
        },
        args=("explain", "train", "--env", "dev"),
        expected_exit=0,
        about="TF_CONFIG dropped the runId suffix",
    ),
}
