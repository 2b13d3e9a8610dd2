"""Hostile output trees: the index, the lock, staging folders and the output root.

A pull request can edit anything under the output root and beside it. Each case is the
command that used to leak, hang or displace (diff, build --check --diff, build), and
test_output_trees.py checks for every case here that nothing outside the project
changed and that the outside secret never reached the output.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.hostile.case import OUTSIDE_DIR, OUTSIDE_FILE, Case, Content, Fifo, Link

INDEX = "manifests/.kgen-index"
HEADER = "# Files kgen generated here; kgen removes them when no job produces them.\n"
# What a build of the base project writes into its index.
ENTRIES = (
    "manifests/dev/kustomization.yaml\n"
    "manifests/dev/train.pytorchjob.yaml spec-yaml-sha256:599c437a0f7d9016\n"
    "manifests/old/kustomization.yaml\n"
    "manifests/old/train.pytorchjob.yaml spec-yaml-sha256:9fa4b73be27cb611\n"
)
JOB_FILE = "manifests/dev/train.pytorchjob.yaml"
DIFF = ("diff",)
CHECK_DIFF = ("build", "--check", "--diff")
BUILD = ("build",)


def index_with(*lines: str) -> dict[str, Content]:
    """The base project's index with more lines after its entries."""
    return {INDEX: HEADER + ENTRIES + "".join(f"{line}\n" for line in lines)}


def project_with(settings: str) -> dict[str, Content]:
    """kgen.yaml of the base project with more settings before its environments."""
    return {
        "kgen.yaml": settings
        + "\nenvironments:\n  dev: {overlays: [v1], namespace: dev}\n  old: [v1beta1]\n"
        "lint:\n  ignore:\n    resources-missing: the job is minimal\n"
    }


IMPORTED = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: train}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - {name: pytorch, image: 'registry.example.com/train:1.0'}
"""
CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget}
  versions:
    - name: v1
      schema:
        openAPIV3Schema: {type: object}
"""


def _sparse(path: str, size: int) -> Callable[[Path], None]:
    """A prepare step: `path` as a file of `size` zero bytes that takes no disk."""

    def make(root: Path) -> None:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        with open(root / path, "wb") as handle:
            handle.truncate(size)

    return make


def _nested(depth: int) -> dict[str, Content]:
    return {"manifests/" + "/".join(["deep"] * depth) + "/x.yaml": "x: 1\n"}


def _read_only_root(root: Path) -> None:
    # As root a chmod stops nothing, so the lock's place is made unusable instead.
    (root / ".manifests.kgen-lock").mkdir()
    (root / ".manifests.kgen-lock" / "x").write_text("x\n")


INDEX_CASES: dict[str, Case] = {
    "index-entry-proc-environ": Case(
        index_with("/proc/self/environ"),
        args=DIFF,
        about="the CI's environment, tokens included, went into the log",
    ),
    "index-entry-absolute": Case(index_with("/etc/hostname"), args=CHECK_DIFF),
    "index-entry-climbs-out": Case(
        index_with("manifests/../../outside/secret.yaml"), args=CHECK_DIFF
    ),
    "index-entry-relative-outside": Case(index_with(OUTSIDE_FILE), args=DIFF),
    "index-entry-outside-output": Case(
        index_with("jobs/train.yaml"),
        args=BUILD,
        about="build reported it removed",
    ),
    "index-entry-dot-component": Case(
        index_with("manifests/./dev/extra.yaml"), args=DIFF
    ),
    "index-entry-empty-component": Case(
        index_with("manifests//dev/extra.yaml"), args=("validate",)
    ),
    "index-entry-trailing-slash": Case(index_with("manifests/dev/"), args=BUILD),
    "index-entry-is-the-output-root": Case(index_with("manifests"), args=BUILD),
    "index-entry-backslashes": Case(
        index_with("manifests\\..\\..\\outside\\secret.yaml"), args=DIFF
    ),
    "index-entry-control-characters": Case(
        index_with("manifests/dev/\x1b[2J\x1b[31mfake.yaml"), args=("validate",)
    ),
    "index-entry-bad-fingerprint": Case(
        index_with("manifests/dev/x.yaml spec-yaml-sha256:../../outside"),
        args=("validate",),
    ),
    "index-many-bad-entries": Case(
        index_with(*(f"/proc/{n}/environ" for n in range(40))), args=DIFF
    ),
    "index-is-a-link-out": Case({INDEX: Link(OUTSIDE_FILE)}, args=("validate",)),
    "index-is-a-fifo-validate": Case({INDEX: Fifo()}, args=("validate",)),
    "index-is-a-fifo-build": Case({INDEX: Fifo()}, args=BUILD),
    "index-is-a-folder": Case({f"{INDEX}/x": "x\n"}, args=BUILD),
    "index-entry-is-a-link-out": Case(
        {
            **index_with("manifests/dev/leak.yaml"),
            "manifests/dev/leak.yaml": Link(OUTSIDE_FILE),
        },
        args=CHECK_DIFF,
    ),
    "index-entry-is-a-link-out-build": Case(
        {
            **index_with("manifests/dev/leak.yaml"),
            "manifests/dev/leak.yaml": Link(OUTSIDE_FILE),
        },
        args=BUILD,
        about="never removed: a link kgen did not write",
    ),
    "index-entry-behind-a-linked-folder": Case(
        {
            **index_with("manifests/away/secret.yaml"),
            "manifests/away": Link(OUTSIDE_DIR),
        },
        args=DIFF,
    ),
    "index-entry-is-a-folder": Case(
        {**index_with("manifests/dev/more"), "manifests/dev/more/x.yaml": "x: 1\n"},
        args=BUILD,
    ),
}

TREE_CASES: dict[str, Case] = {
    "fifo-at-output-path-build": Case({JOB_FILE: Fifo()}, args=BUILD),
    "fifo-at-output-path-check": Case({JOB_FILE: Fifo()}, args=("build", "--check")),
    "fifo-at-output-path-diff": Case({JOB_FILE: Fifo()}, args=DIFF),
    "fifo-at-owned-path-build": Case({**index_with(), JOB_FILE: Fifo()}, args=BUILD),
    "unlisted-link-out-in-output": Case(
        {"manifests/dev/notes.yaml": Link(OUTSIDE_FILE)},
        args=CHECK_DIFF,
        about="a stale file's text went into the diff",
    ),
    "env-folder-is-a-link-out": Case(
        {"manifests/dev": Link(OUTSIDE_DIR)}, args=("build", "--check")
    ),
    "file-where-env-folder-goes": Case(
        {**index_with("manifests/dev"), "manifests/dev": "notes\n"},
        args=BUILD,
        about="moved aside before, even when listed",
    ),
    "fifo-where-env-folder-goes": Case({"manifests/old": Fifo()}, args=DIFF),
    "stale-file-too-large-to-show": Case(
        {},
        args=DIFF,
        expected_exit=0,
        prepare=_sparse("manifests/dev/big.yaml", 100 * 2**20),
        about="100 MB, never read",
    ),
    "output-file-too-large-to-read": Case(
        index_with(),
        args=DIFF,
        expected_exit=0,
        prepare=_sparse(JOB_FILE, 100 * 2**20),
        about="larger than what kgen writes there, so it differs; never read",
    ),
    "index-too-large": Case({}, args=("validate",), prepare=_sparse(INDEX, 40 * 2**20)),
    "output-tree-nested-too-deep": Case(_nested(40), args=BUILD),
    "stale-file-name-not-utf8": Case(
        {"manifests/dev/caf\udce9.yaml": "x: 1\n"}, args=DIFF, expected_exit=0
    ),
    "stale-file-with-escapes-in-its-text": Case(
        {
            "manifests/dev/notes.yaml": "a: 1\n\x1b]0;owned\x07\x1b[2Jb: 2\rfake\x0bline\n"
        },
        args=DIFF,
        expected_exit=0,
        about="shown escaped in the diff, never raw to the terminal",
    ),
    "stale-file-name-with-escapes": Case(
        {"manifests/dev/\x1b[2J\x1b[31mok.yaml": "x: 1\n"},
        args=DIFF,
        expected_exit=0,
    ),
}

ROOT_CASES: dict[str, Case] = {
    "output-parent-is-a-link-out": Case(
        {**project_with("output: out/manifests"), "out": Link(OUTSIDE_DIR)},
        args=BUILD,
        about="the tree and the lock went outside the project",
    ),
    "output-parent-is-a-link-out-diff": Case(
        {**project_with("output: out/manifests"), "out": Link(OUTSIDE_DIR)},
        args=DIFF,
    ),
    "output-parent-is-a-file": Case(
        {**project_with("output: out/manifests"), "out": "x\n"}, args=BUILD
    ),
    "output-root-is-a-fifo": Case({"manifests": Fifo()}, args=("build", "--check")),
    "output-is-readme": Case(
        {**project_with("output: README.md"), "README.md": "# read me\n"},
        args=BUILD,
        about="swapped out for a folder",
    ),
    "output-is-the-project-file": Case(project_with("output: kgen.yaml"), args=BUILD),
    "output-is-the-jobs-folder": Case(project_with("output: jobs"), args=BUILD),
    "output-is-the-overlays-folder": Case(
        project_with("output: ./overlays/"), args=DIFF
    ),
    "output-is-git": Case(
        {**project_with("output: .git"), ".git/HEAD": "ref: refs/heads/main\n"},
        args=BUILD,
    ),
    "output-inside-git": Case(
        {**project_with("output: .git/objects"), ".git/HEAD": "ref: refs/heads/main\n"},
        args=("validate",),
    ),
    "output-is-a-crd-file": Case(
        {
            **project_with("crds: [crds/widgets.yaml]\noutput: crds/widgets.yaml"),
            "crds/widgets.yaml": CRD,
        },
        args=BUILD,
    ),
    "output-holds-the-jobs-folder": Case(
        {
            **project_with("jobs: deploy/jobs\noutput: deploy"),
            "jobs/train.yaml": None,
            "deploy/jobs/train.yaml": "framework: pytorch\nimage: registry.example.com/train:1.0\nroles:\n  master: {replicas: 1}\n",
        },
        args=BUILD,
    ),
    "output-inside-the-jobs-folder": Case(
        project_with("output: jobs/rendered"), args=("validate",)
    ),
    "output-is-the-argocd-folder": Case(
        project_with("argocd: {repoURL: 'https://example.com/r.git'}\noutput: argocd"),
        args=BUILD,
    ),
    "output-with-control-character": Case(
        project_with('output: "manifests\\e[2J"'), args=BUILD
    ),
    "output-name-too-long": Case(project_with("output: " + "m" * 300), args=BUILD),
    "argocd-output-is-the-jobs-folder": Case(
        project_with("argocd: {repoURL: 'https://example.com/r.git', output: jobs}"),
        args=("argocd",),
        about="kgen argocd wrote its Applications among the job specs",
    ),
    "argocd-output-inside-the-output-folder": Case(
        project_with(
            "argocd: {repoURL: 'https://example.com/r.git', output: manifests/argocd}"
        ),
        args=("validate",),
    ),
    "output-is-a-link-to-jobs": Case(
        {**project_with("output: rendered"), "rendered": Link("jobs")}, args=BUILD
    ),
}

LOCK_CASES: dict[str, Case] = {
    "lock-is-a-link-out": Case(
        {".manifests.kgen-lock": Link(OUTSIDE_FILE)},
        args=BUILD,
        about="the lock was opened, and created, through the link",
    ),
    "lock-is-a-dangling-link": Case(
        {".manifests.kgen-lock": Link("../outside/new-file")}, args=BUILD
    ),
    "lock-is-a-folder": Case(
        {}, args=BUILD, prepare=_read_only_root, about="exit 3 before"
    ),
    "lock-is-a-fifo": Case({".manifests.kgen-lock": Fifo()}, args=BUILD),
    "planted-old-tree-link": Case(
        {".manifests.kgen-old-1": Link(OUTSIDE_DIR)},
        args=BUILD,
        expected_exit=0,
        about="recovery renamed the link into place and wrote through it",
    ),
    "planted-new-tree-link": Case(
        {".manifests.kgen-new-1": Link(OUTSIDE_DIR)}, args=BUILD, expected_exit=0
    ),
    "planted-staging-folders-without-marker": Case(
        {
            ".manifests.kgen-old-1/keep.yaml": "mine: 1\n",
            ".manifests.kgen-new-1/keep.yaml": "mine: 2\n",
        },
        args=BUILD,
        expected_exit=0,
        about="left as they are: kgen did not make them",
    ),
    "planted-marked-folder-with-link": Case(
        {
            ".manifests.kgen-new-1/kgen-staging": "x\n",
            ".manifests.kgen-new-1/old": Link(OUTSIDE_DIR),
        },
        args=BUILD,
        expected_exit=0,
        about="a marked folder is removed, its link never followed",
    ),
    "import-out-is-a-link": Case(
        {"in/job.yaml": "kind: PyTorchJob\n", "imported": Link(OUTSIDE_DIR)},
        args=("import", "in/job.yaml", "--out", "imported"),
        expected_exit=2,
    ),
    "import-out-below-a-link": Case(
        {"in/job.yaml": "kind: PyTorchJob\n", "away": Link(OUTSIDE_DIR)},
        args=("import", "in/job.yaml", "--out", "away/imported"),
        expected_exit=2,
    ),
    "import-job-name-climbs-out": Case(
        {
            "in/job.yaml": IMPORTED.replace(
                "name: train", "name: ../../../outside/pwned"
            )
        },
        args=("import", "in/job.yaml", "--out", "imported"),
        about="the job's spec was written outside the project",
    ),
    "import-out-is-a-fifo": Case(
        {"in/job.yaml": "kind: PyTorchJob\n", "imported": Fifo()},
        args=("import", "in/job.yaml", "--out", "imported"),
        expected_exit=2,
    ),
}

CASES: dict[str, Case] = {**INDEX_CASES, **TREE_CASES, **ROOT_CASES, **LOCK_CASES}
