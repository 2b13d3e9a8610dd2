"""Hostile inputs against rules shared between a job's environments
(kgen.rules.reuse, kgen.pipeline.stage): environments whose overlays merge the job to
data equal in Python but not in YAML, or give a mapping the rules read in part keys
of every type, are each checked as if alone."""

from __future__ import annotations

from tests.hostile.case import VALID_JOB, Case, Content

_JOB = VALID_JOB + (
    "resources:\n  requests: {cpu: '1', memory: 1Gi}\n  limits: {memory: 1Gi}\n  gpu: 1\n"
)


def _envs(patches: dict[str, str]) -> dict[str, Content]:
    """The job, and one environment per overlay, each beside `dev`."""
    files: dict[str, Content] = {"jobs/train.yaml": _JOB}
    lines = ["environments:\n  dev: {overlays: [v1], namespace: dev}\n"]
    for name, patch in patches.items():
        files[f"overlays/{name}.yaml"] = f"patch:\n{patch}"
        lines.append(f"  {name}: {{overlays: [v1, {name}], namespace: {name}}}\n")
    files["kgen.yaml"] = "".join(lines)
    return files


CASES: dict[str, Case] = {
    "rules-gpu-one-and-true-merge-apart": Case(
        _envs(
            {
                "one": "  resources: {gpu: 1}\n",
                "yes": "  resources: {gpu: true}\n",
                "float": "  resources: {gpu: 1.0}\n",
            }
        ),
        about="1, true and 1.0 are equal in Python: only `one` merges to dev's spec",
    ),
    "rules-resources-keys-of-every-type": Case(
        _envs(
            {
                "intkey": "  resources: {1: x}\n",
                "nullkey": "  resources: {null: x, requests: {cpu: '9'}}\n",
                "listed": "  resources: [requests, limits]\n",
                "nested": "  resources: {requests: {cpu: {a: [1, {b: 2}]}}}\n",
            }
        ),
        about="a mapping rules read in part, with keys no field has and no mapping at all",
    ),
    # kgen.rules.values.screen_data: the first merged spec is screened by its data.
    "rules-screened-by-data-of-every-type": Case(
        _envs(
            {
                "stamp": "  labels: {day: 2024-01-01}\n",
                "binary": "  labels: {blob: !!binary aGVsbG8=}\n",
                "escape": '  annotations: {note: "bell\\a and \\e"}\n',
                "c1": '  env: [{name: V, value: "a\\x85b"}]\n',
                "token": "  podAnnotations: {x: ghp_abcdefghijklmnopqrstuvwxyz0123456789}\n",
                "anchor": "  nodeSelector: &s {a: b}\n  podLabels: *s\n",
                "quantity": "  resources: {requests: {cpu: 1.5e3, memory: 1e9}}\n",
            }
        ),
        about="data whose JSON is not the spec's: every control character and"
        " credential is found as if the spec were screened",
    ),
    # kgen/kinds/*/rules.py declare what they read: an MPIJob's environments change
    # what its rules read, each reported as if alone.
    "rules-mpi-environments-apart": Case(
        {
            "jobs/hpc.yaml": "name: hpc\nframework: mpi\nimage: x:1\ncommand: [run]\n"
            "roles:\n  launcher: {replicas: 1}\n  worker: {replicas: 2}\n",
            "overlays/nolauncher.yaml": "patch:\n  roles: {launcher: null}\n",
            "overlays/own.yaml": "patch:\n  roles: {worker: {replicas: 2, command: [w]}}\n",
            "overlays/args.yaml": "patch:\n  command: null\n  args: [a]\n",
            "kgen.yaml": "environments:\n"
            "  dev: {overlays: [v1], namespace: dev}\n"
            "  nolauncher: {overlays: [v1, nolauncher], namespace: a}\n"
            "  own: {overlays: [v1, own], namespace: b}\n"
            "  args: {overlays: [v1, args], namespace: c}\n",
        },
        about="a launcher removed, a worker's own command, args for the command",
    ),
}
