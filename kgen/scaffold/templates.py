"""The files `kgen init` writes: a dev CPU and a prod GPU environment, one example job,
its overlays, CI and pre-commit pinned to the installed kgen, and editor schema comments."""

from __future__ import annotations

from kgen import __version__

# The distribution on the package index (`kgen` there is an unrelated package).
DISTRIBUTION = "kgen-kubeflow"

# What kgen leaves beside its output root while it builds (lock, staging folders);
# `.*.kgen-*` covers them all.
GITIGNORE_LINES = (
    "# kgen's build lock and staging folders beside the output root",
    ".*.kgen-*",
)

_OVERLAY = "# yaml-language-server: $schema=../schemas/kgen-overlay.schema.json\n"

PROJECT = """\
# yaml-language-server: $schema=schemas/kgen-project.schema.json
# kgen project: which environments to render, each an ordered list of overlays (later
# overlays win). `kgen build` writes manifests/<environment>/ for Argo CD or Flux.
jobs: jobs
overlays: overlays
output: manifests
# How GPU pods reach GPU nodes; a GPU pod without either is a mistake (gpu-placement).
gpuPlacement:
  nodeSelectorKeys: [cloud.google.com/gke-accelerator]
  tolerationKeys: [nvidia.com/gpu]
# What no job or overlay can silence (lint.ignore): what the baseline Pod Security
# Standard forbids (hostPath, host namespaces and ports, privileged containers, added
# capabilities) is an error in every environment without a policy of its own.
policy:
  podSecurity: baseline
environments:
  dev-cpu:
    overlays: [cpu, dev, v1]
    namespace: ml-dev
    policy: {podSecurity: privileged}  # dev relaxes: warnings and lint.ignore as usual
    gpuQuota: 0  # CPU nodes only: a job that still asks for a GPU here fails validate
  prod-gpu:
    overlays: [gpu, prod, v1]
    namespace: ml-prod
    gpuQuota: 8
"""

JOB = """\
# yaml-language-server: $schema=../schemas/kgen-job.schema.json
# An example PyTorchJob: one master and two workers. On dev-cpu it runs without a GPU
# (overlays/cpu.yaml); on prod-gpu each pod gets one.
framework: pytorch
description: MNIST with DistributedDataParallel
labels:
  app: mnist
  accelerator: gpu
image: docker.io/kubeflow/pytorch-dist-mnist:v1.0
args: [--backend, gloo, --epochs, "2"]
resources:
  requests: {cpu: "1", memory: 2Gi}
  limits: {cpu: "2", memory: 4Gi}
  gpu: 1
roles:
  master: {replicas: 1}
  worker: {replicas: 2}
"""

OVERLAYS = {
    "cpu": _OVERLAY
    + """\
description: CPU-only nodes; GPU jobs run as CPU smoke tests.
patch:
  resources:
    gpu: null
  # torchrun's auto would start one process per CPU core of the node, and gpu would
  # find no device: without it kgen sets 1 process per pod.
  nprocPerNode: null
""",
    "gpu": _OVERLAY
    + """\
description: The GPU node pool, for jobs labelled accelerator=gpu.
match:
  labels:
    accelerator: gpu
patch:
  nodeSelector:
    cloud.google.com/gke-accelerator: nvidia-tesla-t4
  tolerations:
    - key: nvidia.com/gpu
      operator: Exists
      effect: NoSchedule
""",
    "dev": _OVERLAY
    + """\
description: Development cluster; fail fast and never hold nodes for long.
patch:
  labels:
    env: dev
  runPolicy:
    backoffLimit: 1
    activeDeadlineSeconds: 7200
""",
    "prod": _OVERLAY
    + """\
description: Production cluster.
patch:
  labels:
    env: prod
""",
    "v1": _OVERLAY
    + """\
description: training-operator 1.7 and later (Kubeflow 1.8+); run fields under spec.runPolicy.
# A training-operator 1.3 to 1.6 cluster: name its release, e.g. training-operator-1.6.
target: v1
""",
}


def workflow() -> str:
    """A CI workflow: validate with annotations, and fail when manifests/, or argocd/
    and flux/ where kgen.yaml configures them, are stale."""
    return f"""\
# kgen on every pull request: problems as annotations on the changed lines, jobs
# changed in place flagged against the target branch, stale manifests/ fail the check,
# and so do stale argocd/ and flux/ once kgen.yaml has an argocd: or flux: section.
name: kgen
on:
  pull_request:
  push:
    branches: [main]
permissions:
  contents: read
jobs:
  kgen:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0  # --base reads the target branch through git
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      # kgen's cache of renders, keyed by content: unchanged jobs are not rendered
      # again. A restored cache never changes an answer.
      - uses: actions/cache@v4
        with:
          path: ~/.cache/kgen
          key: kgen-{__version__}-${{{{ github.sha }}}}
          restore-keys: kgen-{__version__}-
      - run: pip install '{DISTRIBUTION}=={__version__}'
      - run: kgen validate --strict
      - run: kgen build --check --diff
      - run: kgen argocd --check --if-configured
      - run: kgen flux --check --if-configured
"""


def pre_commit() -> str:
    """Hooks pinned to the installed kgen, installed once from the package index and
    offline after that."""
    return f"""\
# pre-commit (https://pre-commit.com): `pre-commit install` once; kgen is installed
# into pre-commit's own environment on first use, pinned to the version that wrote this.
repos:
  - repo: local
    hooks:
      - id: kgen-validate
        name: kgen validate
        entry: kgen validate --strict
        language: python
        additional_dependencies: ['{DISTRIBUTION}=={__version__}']
        files: (^|/)(kgen\\.yaml|jobs/[^/]+\\.ya?ml|overlays/[^/]+\\.ya?ml|resources/([^/]+/)?[^/]+\\.ya?ml)$
        require_serial: true
      - id: kgen-build-check
        name: kgen build --check
        entry: kgen build --check
        language: python
        additional_dependencies: ['{DISTRIBUTION}=={__version__}']
        pass_filenames: false
        files: (^|/)(kgen\\.yaml|jobs/|overlays/|resources/|manifests/)
      - id: kgen-argocd-check
        name: kgen argocd --check
        entry: kgen argocd --check --if-configured
        language: python
        additional_dependencies: ['{DISTRIBUTION}=={__version__}']
        pass_filenames: false
        files: (^|/)(kgen\\.yaml|jobs/|overlays/|resources/|argocd/)
      - id: kgen-flux-check
        name: kgen flux --check
        entry: kgen flux --check --if-configured
        language: python
        additional_dependencies: ['{DISTRIBUTION}=={__version__}']
        pass_filenames: false
        files: (^|/)(kgen\\.yaml|jobs/|overlays/|resources/|flux/)
"""


def project_files() -> dict[str, str]:
    """Relative path to text: everything but .gitignore (merged) and the schemas."""
    return {
        "kgen.yaml": PROJECT,
        "jobs/mnist.yaml": JOB,
        **{f"overlays/{name}.yaml": text for name, text in OVERLAYS.items()},
        ".github/workflows/kgen.yml": workflow(),
        ".pre-commit-config.yaml": pre_commit(),
    }
