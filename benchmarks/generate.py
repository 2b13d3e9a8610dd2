"""Write a synthetic kgen project of N jobs for `make bench`.

A realistic mix: PyTorch and TF jobs, per-role overrides, created and existing claims,
TensorBoard on half of them, four environments spanning the API targets (CPU and GPU,
v1, v1-legacy, v1beta2). The same N always gives the same files.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

KGEN_YAML = """\
externalClaims: [datasets]
lint:
  ignore:
    job-changed-in-place: benchmark inputs change on purpose
environments:
  dev-cpu: {overlays: [cpu, v1], namespace: ml-dev}
  prod-gpu: {overlays: [gpu, v1], namespace: ml-prod}
  kf12-gpu: {overlays: [gpu, legacy], namespace: kubeflow, jobs: {labels: {legacy: "ok"}}}
  kf06-cpu: {overlays: [cpu, beta2], jobs: {labels: {legacy: "ok"}}}
"""
OVERLAYS = {
    "cpu": "patch:\n  resources: {gpu: null}\n  nprocPerNode: null\n",
    "gpu": "patch:\n  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n"
    "  tolerations:\n    - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}\n",
    "v1": "target: v1\n",
    "legacy": "target: v1-legacy\npatch:\n  nprocPerNode: null\n",
    "beta2": "target: v1beta2\npatch:\n  nprocPerNode: null\n",
}


def job(index: int, rng: random.Random) -> str:
    pytorch = index % 3 != 0
    name = f"{'pt' if pytorch else 'tf'}-job-{index:05d}"
    lines = [
        f"name: {name}",
        f"framework: {'pytorch' if pytorch else 'tensorflow'}",
        f'labels: {{team: team-{index % 7}, legacy: "ok"}}',
        f"image: registry.example.com/ml/train-{index % 11}:1.{index % 5}.0",
        "command: [python, -m, train]",
        f'args: [--epochs, "{rng.randint(1, 90)}", --lr, "0.0{rng.randint(1, 9)}"]',
        "env:",
        *(f'  - {{name: VAR_{k}, value: "{rng.randint(0, 999)}"}}' for k in range(6)),
        "  - {name: WANDB_API_KEY, secretKeyRef: {name: wandb, key: api-key}}",
        "resources:",
        f'  requests: {{cpu: "{rng.choice([2, 4, 8])}", memory: {rng.choice([8, 16, 32])}Gi}}',
        "  limits: {memory: 64Gi}",
        f"  gpu: {rng.choice([1, 2, 4])}",
        "volumes:",
        "  - {name: data, claim: datasets, mountPath: /data, readOnly: true}",
        # Every pod writes it (and TensorBoard reads it): ReadWriteMany, as a team's
        # would be, or each job warns (claim-rwo-many-pods).
        f"  - {{name: out, claim: {name}-out, mountPath: /out,"
        " create: {size: 50Gi, accessModes: [ReadWriteMany]}}",
    ]
    if index % 2 == 0:
        lines.append("tensorboard: {logDir: /out/logs}")
    if pytorch:
        lines += [
            "sharedMemory: 4Gi",
            "roles:",
            "  master: {replicas: 1}",
            f"  worker: {{replicas: {rng.randint(1, 7)}}}",
        ]
    else:
        lines += [
            "roles:",
            "  chief: {replicas: 1}",
            f"  worker: {{replicas: {rng.randint(1, 7)}}}",
            "  ps:",
            "    replicas: 2",
            '    resources: {requests: {cpu: "2", memory: 32Gi}}',
        ]
    return "\n".join(lines) + "\n"


def generate(root: Path, jobs: int) -> None:
    rng = random.Random(jobs)
    (root / "jobs").mkdir(parents=True, exist_ok=True)
    (root / "overlays").mkdir(exist_ok=True)
    (root / "kgen.yaml").write_text(KGEN_YAML)
    for name, text in OVERLAYS.items():
        (root / "overlays" / f"{name}.yaml").write_text(text)
    for index in range(jobs):
        (root / spec_path(index)).write_text(job(index, rng))


def spec_path(index: int) -> Path:
    return Path("jobs") / f"job-{index:05d}.yaml"


def edit_spec(root: Path, index: int, epochs: int) -> Path:
    """Give job `index` a new epoch count: its output changes in every environment.
    The path edited, relative to root."""
    relative = spec_path(index)
    path = root / relative
    lines = path.read_text().splitlines(keepends=True)
    lines = [
        f'args: [--epochs, "{epochs}", --lr, "0.01"]\n'
        if line.startswith("args:")
        else line
        for line in lines
    ]
    path.write_text("".join(lines))
    return relative


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", type=Path)
    parser.add_argument("--jobs", type=int, default=1000)
    args = parser.parse_args()
    generate(args.root, args.jobs)
