"""Hostile values: what reaches the output, secrets, and the merge."""

from __future__ import annotations

from tests.hostile.case import VALID_JOB, Case, job, job_with

# --- the merge, in linear time

_ENTRIES = 10_000


def _env_job(count: int) -> str:
    return (
        VALID_JOB
        + "env:\n"
        + "".join(f"  - {{name: V{i}, value: a}}\n" for i in range(count))
    )


def _env_patch(count: int) -> str:
    # Every entry patched, in reverse order; the last one with a number, so the
    # problem is located through provenance across all of them.
    entries = [f"    - {{name: V{i}, value: b}}\n" for i in range(count - 1, 0, -1)]
    return (
        "target: v1\npatch:\n  env:\n"
        + "".join(entries)
        + "    - {name: V0, value: 7}\n"
    )


def _integers(count: int) -> str:
    return "[" + ",".join(["1"] * count) + "]"


def _with(job_text: str, old: str, new: str) -> str:
    assert old in job_text
    return job_text.replace(old, new)


CASES: dict[str, Case] = {
    "overlay-patches-10000-env-entries": Case(
        {
            "jobs/train.yaml": _env_job(_ENTRIES),
            "overlays/v1.yaml": _env_patch(_ENTRIES),
        },
        about="an N-item merge was O(N²): 5,000 entries took 13.7 s, 10,000 54 s",
        seconds=2.0,
    ),
    "overlay-env-of-99000-integers": Case(
        {"overlays/v1.yaml": f"target: v1\npatch:\n  env: {_integers(99_000)}\n"},
        about="keyless items: `item not in base` for each was O(N²), past 120 s",
        seconds=2.0,
    ),
    "job-and-overlay-env-of-50000-integers": Case(
        {
            "jobs/train.yaml": VALID_JOB + f"env: {_integers(50_000)}\n",
            "overlays/v1.yaml": f"target: v1\npatch:\n  env: {_integers(50_000)}\n",
        },
        about="keyless items against a long base: each looked up, not compared",
        seconds=2.0,
    ),
    # --- integers beyond what the Kubernetes field holds
    "run-as-user-10e26": Case(
        job_with("securityContext: {runAsUser: 100000000000000000000000000}"),
        about="int64 in the core definitions",
    ),
    "fs-group-2e64": Case(
        job_with("podSecurityContext: {fsGroup: 18446744073709551616}"),
    ),
    "run-as-group-as-huge-float": Case(
        job_with("podSecurityContext: {runAsGroup: 1.0e+30}"),
    ),
    "toleration-seconds-10e23": Case(
        job_with(
            "tolerations: [{key: a, operator: Exists, effect: NoExecute,"
            " tolerationSeconds: 100000000000000000000000}]"
        ),
        about="kgen's own model field, an int64 in the output",
    ),
    "affinity-weight-10e21": Case(
        job_with(
            "affinity:\n  nodeAffinity:\n"
            "    preferredDuringSchedulingIgnoredDuringExecution:\n"
            "      - weight: 1000000000000000000000\n"
            "        preference: {matchExpressions: [{key: a, operator: Exists}]}"
        ),
        about="int32, and 1-100 as the definition states",
    ),
    "hpa-utilisation-beyond-int32": Case(
        job(
            _with(VALID_JOB, "  master: {replicas: 1}\n", "")
            + "elasticPolicy:\n  metrics:\n    - type: Resource\n"
            "      resource: {name: cpu, target: {type: Utilization,"
            " averageUtilization: 4294967296}}\n"
        ),
        about="target v1beta1 cannot express elasticPolicy either",
    ),
    # --- control characters in values that reach the output
    "nul-in-env-value": Case(job_with('env: [{name: MODE, value: "fast\\0"}]')),
    "esc-in-arg": Case(job_with('args: [--title, "\\e[2Jred"]')),
    "del-in-annotation": Case(job_with('annotations: {example.com/note: "a\\x7fb"}')),
    "c1-in-pod-annotation": Case(
        job_with('podAnnotations: {example.com/n: "a\\x85b"}')
    ),
    "bell-in-command-of-a-role": Case(
        job(
            _with(
                VALID_JOB,
                "worker: {replicas: 2}",
                'worker: {replicas: 2, command: [python, "ring\\a"]}',
            )
        )
    ),
    "nul-in-affinity-value": Case(
        job_with(
            "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
            " {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In,"
            ' values: ["a\\0"]}]}]}}}'
        )
    ),
    "escape-in-min-resources-key": Case(
        job_with('runPolicy: {schedulingPolicy: {minResources: {"gpu\\e": "1"}}}')
    ),
    "line-breaks-and-tabs-in-values-are-accepted": Case(
        job_with(
            'command: [bash, -c, "set -e\\n\\tpython train.py\\r\\n"]\n'
            'env: [{name: SCRIPT, value: "a\\nb\\tc"}]\n'
            'annotations: {example.com/notes: "line one\\nline two"}'
        ),
        expected_exit=0,
    ),
    # --- secrets never echoed
    "image-with-password-is-masked": Case(
        job(
            _with(
                VALID_JOB,
                "image: registry.example.com/train:1.0",
                "image: admin:hunter2@registry.example.com/train:1.0",
            )
        ),
        about="refused, and the message must not print the password",
    ),
    # --- one environment's overlay changes what another's spec has: its checks are
    # its own, not taken from the other environment's (kgen.rules.reuse)
    "overlay-writes-1-where-the-job-writes-true": Case(
        {
            **job_with("securityContext: {privileged: true}"),
            "overlays/v1.yaml": "target: v1\npatch:\n  securityContext: {privileged: 1}\n",
        },
        about="1 == True in Python: a comparison by == would share the other's checks",
    ),
    "escape-in-an-annotation-of-one-environment": Case(
        {
            **job_with("annotations: {note: fine}"),
            "overlays/v1beta1.yaml": 'target: v1beta1\npatch:\n  annotations: {note: "a\\eb"}\n',
        },
        about="the other environment's spec is clean; this one's annotation is not",
    ),
    "empty-image-in-one-environment": Case(
        {"overlays/v1beta1.yaml": 'target: v1beta1\npatch:\n  image: ""\n'},
        about="a field validated again alone: its problem as validating the whole spec says it",
    ),
}
