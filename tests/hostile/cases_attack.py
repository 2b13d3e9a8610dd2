"""Hostile inputs found by an independent attack on the hardening (issue 14)."""

from __future__ import annotations

from tests.hostile.case import OUTSIDE_DIR, OUTSIDE_FILE, Case, Link

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
IMPORT = ("import", "in/job.yaml", "--out", "imported")


def _imported(name: str) -> str:
    return IMPORTED.replace("metadata: {name: train}", f"metadata: {{name: {name}}}")


# F2: CI runs `kgen import` on the files of a pull request; nothing outside the
# current folder is read, named or linked, and a refusal says the same whether the
# file exists or not.
IMPORT_READ_CASES: dict[str, Case] = {
    "import-reads-a-link-out-of-the-project": Case(
        {"in/job.yaml": Link(OUTSIDE_FILE)},
        args=IMPORT,
        about="the outside file's content was copied into the new project",
    ),
    "import-reads-a-link-to-an-outside-folder": Case(
        {"in": Link(OUTSIDE_DIR)},
        args=("import", "in/secret.yaml", "--out", "imported"),
    ),
    "import-reads-a-path-outside-the-project": Case(
        {}, args=("import", OUTSIDE_FILE, "--out", "imported")
    ),
    "import-outside-path-that-does-not-exist": Case(
        {},
        args=("import", "../outside/nothing.yaml", "--out", "imported"),
        about="the same refusal as for a file that exists: nothing is confirmed",
    ),
    "import-reads-an-absolute-path-outside": Case(
        {}, args=("import", "/etc/hostname", "--out", "imported")
    ),
    "import-link-that-stays-inside-is-read": Case(
        {"in/job.yaml": Link("src/job.yaml"), "src/job.yaml": IMPORTED},
        args=IMPORT,
        expected_exit=0,
    ),
    "import-a-missing-file-inside": Case(
        {}, args=("import", "in/nothing.yaml", "--out", "imported")
    ),
    "import-a-folder": Case(
        {"in/job.yaml": IMPORTED}, args=("import", "in", "--out", "imported")
    ),
}

# F12, F14: a name or apiVersion the importer cannot turn into a job is refused at its
# line, and nothing is written.
IMPORT_SHAPE_CASES: dict[str, Case] = {
    "import-api-version-without-a-slash": Case(
        {"in/job.yaml": IMPORTED.replace("kubeflow.org/v1", "v1")}, args=IMPORT
    ),
    "import-api-version-empty": Case(
        {"in/job.yaml": IMPORTED.replace("kubeflow.org/v1", "''")}, args=IMPORT
    ),
    "import-api-version-missing": Case(
        {"in/job.yaml": IMPORTED.replace("apiVersion: kubeflow.org/v1\n", "")},
        args=IMPORT,
    ),
    "import-api-version-a-number": Case(
        {"in/job.yaml": IMPORTED.replace("kubeflow.org/v1", "1")}, args=IMPORT
    ),
    "import-job-name-too-long": Case(
        {"in/job.yaml": _imported("a" * 300)},
        args=IMPORT,
        about="exit 3 (file name too long), and a half-written project",
    ),
    "import-job-name-empty": Case(
        {"in/job.yaml": _imported("''")},
        args=IMPORT,
        about="jobs/.yaml was written and never read: the job disappeared",
    ),
    "import-job-name-dot-dot": Case({"in/job.yaml": _imported("'..'")}, args=IMPORT),
    "import-job-name-upper-case": Case(
        {"in/job.yaml": _imported("Train")}, args=IMPORT
    ),
    "import-job-name-with-a-dot": Case(
        {"in/job.yaml": _imported("train.v2")}, args=IMPORT
    ),
    "import-one-bad-job-among-good-ones": Case(
        {"in/job.yaml": IMPORTED + "---\n" + _imported("'..'")},
        args=IMPORT,
        about="the good job is imported, the bad one reported: exit 1",
    ),
}

CASES: dict[str, Case] = {**IMPORT_READ_CASES, **IMPORT_SHAPE_CASES}
