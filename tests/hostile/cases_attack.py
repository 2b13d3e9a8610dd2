"""Hostile inputs found by an independent attack on the hardening (issue 14)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from pathlib import Path

from tests.hostile.case import OUTSIDE_DIR, OUTSIDE_FILE, VALID_JOB, Case, Link

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
LONG = "a" * 300
IMPORTED_JOB = """\
framework: pytorch
image: registry.example.com/train:1.0
roles:
  master: {replicas: 1}
"""


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
    "import-a-missing-file-inside": Case(
        {}, args=("import", "in/nothing.yaml", "--out", "imported")
    ),
    "import-a-folder": Case(
        {"in/job.yaml": IMPORTED}, args=("import", "in", "--out", "imported")
    ),
}

# Imports that write a project: not in the corpus, whose bounds harness runs each
# case three times in one folder (the second run finds it not empty);
# tests/test_import_safety.py runs them.
IMPORT_WRITING_CASES: dict[str, Case] = {
    "import-link-that-stays-inside-is-read": Case(
        {"in/job.yaml": Link("src/job.yaml"), "src/job.yaml": IMPORTED},
        args=IMPORT,
        expected_exit=0,
    ),
    "import-one-bad-job-among-good-ones": Case(
        {"in/job.yaml": IMPORTED + "---\n" + _imported("'..'")},
        args=IMPORT,
        about="the bad job reported, and nothing written: exit 1",
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
    "import-api-version-unknown": Case(
        {"in/job.yaml": IMPORTED.replace("kubeflow.org/v1", "kubeflow.org/v9")},
        args=IMPORT,
        about="imported with an overlay `target: v9` that no build accepts",
    ),
    "import-api-version-too-long": Case(
        {"in/job.yaml": IMPORTED.replace("kubeflow.org/v1", "kubeflow.org/" + LONG)},
        args=IMPORT,
        about="the target names an overlay file: exit 3, file name too long",
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
}


def _project(settings: str, environments: str = "  dev: {overlays: [v1]}\n") -> str:
    """kgen.yaml with `settings` before its environments."""
    return (
        settings
        + "\nenvironments:\n"
        + environments
        + "lint:\n  ignore:\n    resources-missing: the job is minimal\n"
    )


BUILD = ("build",)
ARGO = "argocd: {repoURL: 'https://github.com/o/r.git', output: %s}"

# F20, F21: every path kgen.yaml names is checked where it is written (relative, no
# control character, a length the OS takes), and one that cannot be read is reported
# at the entry that names it; never exit 3.
PATH_CASES: dict[str, Case] = {
    "kgen-yaml-jobs-with-nul": Case({"kgen.yaml": _project('jobs: "a\\0b"')}),
    "kgen-yaml-overlays-with-nul": Case({"kgen.yaml": _project('overlays: "a\\0b"')}),
    "kgen-yaml-crds-with-nul": Case({"kgen.yaml": _project('crds: ["a\\0b"]')}),
    "kgen-yaml-argocd-output-with-nul": Case(
        {"kgen.yaml": _project(ARGO % '"a\\0b"')}, args=("argocd",)
    ),
    "kgen-yaml-environment-overlay-with-nul": Case(
        {"kgen.yaml": _project("", '  dev: ["v1\\0"]\n')}
    ),
    "kgen-yaml-environment-overlay-with-escape": Case(
        {"kgen.yaml": _project("", '  dev: ["v1\\e[2J"]\n')}
    ),
    "kgen-yaml-argocd-output-too-long": Case(
        {"kgen.yaml": _project(ARGO % ("a" * 5000))},
        args=("argocd",),
        about="validate and build passed; kgen argocd exited 3 (file name too long)",
    ),
    "kgen-yaml-jobs-name-too-long": Case({"kgen.yaml": _project(f"jobs: {LONG}")}),
    "kgen-yaml-overlay-name-too-long": Case(
        {"kgen.yaml": _project("", f"  dev: [{'o' * 251}]\n")}
    ),
    "kgen-yaml-output-path-too-long": Case(
        {"kgen.yaml": _project("output: " + "/".join(["m" * 200] * 6))}, args=BUILD
    ),
    "kgen-yaml-crd-missing": Case({"kgen.yaml": _project("crds: [crds/missing.yaml]")}),
    "kgen-yaml-crd-is-a-folder": Case(
        {"kgen.yaml": _project("crds: [crds]"), "crds/x.txt": "x\n"}
    ),
    "kgen-yaml-crd-links-out": Case(
        {"kgen.yaml": _project("crds: [crd.yaml]"), "crd.yaml": Link(OUTSIDE_FILE)}
    ),
}

# F5, F6, F23: an output folder kgen cannot own whole, or whose index would read as
# something else, is refused at `output:`; recovery never takes an input for its own.
OUTPUT_CASES: dict[str, Case] = {
    "output-starts-with-hash": Case(
        {"kgen.yaml": _project("output: '#out'")},
        args=BUILD,
        about="every index line read as a comment: kgen disowned its own files",
    ),
    "output-holds-a-hash": Case({"kgen.yaml": _project("output: 'gen/#out'")}),
    "output-ends-with-a-space": Case({"kgen.yaml": _project("output: 'out '")}),
    "output-not-ascii": Case({"kgen.yaml": _project("output: 'ausgabe/\u00fc'")}),
    "output-starts-with-a-dash": Case({"kgen.yaml": _project("output: -out")}),
    "output-is-argocd-without-an-argocd-section": Case(
        {
            "kgen.yaml": _project("output: argocd"),
            "argocd/app.yaml": "kind: Application\n",
        },
        args=BUILD,
        about="the build replaced the user's argocd/ folder",
    ),
    "output-inside-argocd-without-an-argocd-section": Case(
        {"kgen.yaml": _project("output: argocd/gen")}, args=BUILD
    ),
    "jobs-folder-has-a-staging-name": Case(
        {
            "kgen.yaml": _project("jobs: .manifests.kgen-jobs"),
            ".manifests.kgen-jobs/train.yaml": IMPORTED_JOB,
            ".manifests.kgen-jobs/kgen-staging": "notes\n",
        },
        args=BUILD,
        about="the build's recovery deleted the jobs folder",
    ),
    "argocd-output-has-the-lock-name": Case(
        {"kgen.yaml": _project(ARGO % ".manifests.kgen-lock")}, args=BUILD
    ),
    "planted-marked-folder-not-named-by-kgen": Case(
        {
            ".manifests.kgen-mine/kgen-staging": "x\n",
            ".manifests.kgen-mine/notes.txt": "mine\n",
        },
        args=BUILD,
        expected_exit=0,
        about="recovery removes only folders under the names kgen gives them",
        prepare=lambda root: (root / ".manifests.kgen-new-x").mkdir(),
    ),
}


def _built_then(plant: Callable[[Path], None]) -> Callable[[Path], None]:
    """Build the project (so the tree is kgen's own), then plant files in it."""

    def prepare(root: Path) -> None:
        from kgen.cli import main

        with contextlib.redirect_stderr(io.StringIO()):
            assert main(["build", "-C", str(root)]) == 0
        plant(root)

    return prepare


def owned(root: Path, *paths: str) -> None:
    """List `paths` in the index, as a pull request that plants files can: kgen then
    takes them for its own stale files and diffs them (a file it does not own is only
    named, with the resources/ folder it belongs in)."""
    index = root / "manifests" / ".kgen-index"
    lines = index.read_text(encoding="utf-8").splitlines()
    header = [line for line in lines if line.startswith("#")]
    entries = sorted([*(line for line in lines if not line.startswith("#")), *paths])
    index.write_text("".join(f"{line}\n" for line in [*header, *entries]))


def _junk(count: int, size: int, fill: bytes = b"\0") -> Callable[[Path], None]:
    """After a build, `count` files of `size` bytes of `fill` in manifests/junk (sparse
    when NUL), listed in the index."""

    def plant(root: Path) -> None:
        folder = root / "manifests" / "junk"
        folder.mkdir()
        owned(root, *(f"manifests/junk/f{i}.yaml" for i in range(count)))
        for i in range(count):
            with open(folder / f"f{i}.yaml", "wb") as file:
                if fill == b"\0":
                    file.truncate(size)
                else:
                    file.write(fill * (size // len(fill)))

    return _built_then(plant)


def _planted(name: str, text: str, *, mode: str = "w") -> Callable[[Path], None]:
    """After a build, `text` written to (or with mode "a", added to) file `name`."""

    def plant(root: Path) -> None:
        if mode == "w":
            owned(root, name)
        with open(root / name, mode, encoding="utf-8") as file:
            file.write(text)

    return _built_then(plant)


MIB = 1024 * 1024
CREDENTIALS = (
    "url: https://admin:Hunter2xHunter2@db.example.com/x\n"
    "token: ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\n"
)
DIFF = ("diff",)

# F18, F27: the diff of a tree a pull request planted files in is bounded (per file
# and in all), linear, masked and escaped. (The total is in tests/test_diff_text.py:
# a golden of a megabyte helps nobody.)
DIFF_CASES: dict[str, Case] = {
    "diff-of-twenty-4-mib-nul-files": Case(
        {},
        args=DIFF,
        expected_exit=0,
        prepare=_junk(20, 4 * MIB - 1),
        about="more than 20 s, and 16 MB of output a file",
    ),
    "diff-of-a-file-just-over-the-shown-size": Case(
        {}, args=DIFF, expected_exit=0, prepare=_junk(1, 64 * 1024 + 1, b"\x1b")
    ),
    "diff-of-a-file-that-is-not-utf8": Case(
        {},
        args=DIFF,
        expected_exit=0,
        prepare=_junk(1, 100, b"\xff\xfe"),
        about="the file was shown as empty: nothing said it would be removed",
    ),
    "diff-of-an-owned-file-grown-past-the-shown-size": Case(
        {},
        args=DIFF,
        expected_exit=0,
        prepare=_planted("manifests/dev/kustomization.yaml", "# x\n" * 20000, mode="a"),
    ),
    "diff-of-a-stale-file-of-many-lines": Case(
        {}, args=DIFF, expected_exit=0, prepare=_junk(1, 3000 * 2, b"a\n")
    ),
    "diff-masks-credentials-in-a-planted-file": Case(
        {},
        args=DIFF,
        expected_exit=0,
        prepare=_planted("manifests/dev/creds.yaml", CREDENTIALS),
        about="the password and the token were printed in clear",
    ),
    "diff-masks-credentials-added-to-an-owned-file": Case(
        {},
        args=DIFF,
        expected_exit=0,
        prepare=_planted("manifests/dev/kustomization.yaml", CREDENTIALS, mode="a"),
    ),
    "diff-escapes-control-characters-in-a-planted-file": Case(
        {},
        args=DIFF,
        expected_exit=0,
        prepare=_planted(
            "manifests/dev/x.yaml", "a: \x1b]0;owned\x07\x1b[2J\x9b\u202e\tb\n"
        ),
    ),
}


def _index_lines(*lines: str) -> Callable[[Path], None]:
    """After a build, `lines` added to the index."""
    return _planted(INDEX, "".join(f"{line}\n" for line in lines), mode="a")


def _index_of(size: int) -> Callable[[Path], None]:
    """After a build, well-formed entries added to the index until it is `size` bytes."""

    def plant(root: Path) -> None:
        index = root / INDEX
        have = index.stat().st_size
        line = (
            "manifests/dev/x{:07}.pytorchjob.yaml spec-yaml-sha256:0123456789abcdef\n"
        )
        count = (size - have) // len(line.format(0))
        with open(index, "a", encoding="utf-8") as file:
            file.writelines(line.format(i) for i in range(count))

    return _built_then(plant)


INDEX = "manifests/.kgen-index"
PASSWORD_URL = (
    "https://admin:Sup3rS3cretPassw0rdValue1234567890abcdefXYZ@git.example.com/r.git"
)

# F3 (index lines), F19: a bad index line is masked before it is cut short, and the
# largest index kgen reads keeps a build within its memory bound.
INDEX_CASES: dict[str, Case] = {
    "index-line-cut-after-a-password": Case(
        {},
        args=("validate",),
        prepare=_index_lines(f"manifests/dev/x.yaml {PASSWORD_URL}"),
        about="the line was cut before its '@', and the password shown in clear",
    ),
    "index-line-cut-inside-a-token": Case(
        {},
        args=("validate",),
        prepare=_index_lines(
            "manifests/dev/"
            + "x" * 50
            + ".yaml ghp_Z9Z9Z9Z9Z9Z9Z9Z9Z9Z9Z9Z9Z9Z9Z9Z9Z9Z9"
        ),
    ),
    "index-just-under-its-limit": Case(
        {},
        args=("build",),
        expected_exit=0,
        prepare=_index_of(12 * MIB - 100),
        about="a 29 MB index took a build past 250 MB",
        seconds=2.0,
    ),
    "index-just-over-its-limit": Case(
        {}, args=("build", "--check"), prepare=_index_of(12 * MIB + 100)
    ),
}


def _new_image(root: Path) -> None:
    job = root / "jobs" / "train.yaml"
    job.write_text(job.read_text().replace("train:1.0", "train:1.1"))


# F26: --env E touches and compares only E's folder and index lines (more in
# tests/test_partial_build.py).
ENV_CASES: dict[str, Case] = {
    "build-env-leaves-other-environments": Case(
        {},
        args=("build", "--env", "dev"),
        expected_exit=0,
        prepare=_built_then(_new_image),
        about="every other environment's manifests were deleted",
    ),
    "check-env-ignores-other-environments": Case(
        {},
        args=("build", "--check", "--env", "dev"),
        expected_exit=0,
        prepare=_planted("manifests/old/extra.yaml", "a: 1\n"),
        about="old's files were reported stale, with advice to run kgen build",
    ),
    "diff-env-shows-that-environment-only": Case(
        {},
        args=("diff", "--env", "dev"),
        expected_exit=0,
        prepare=_built_then(_new_image),
    ),
}

# A job file with nothing but dots before .yaml: splitext sees no suffix, and it was
# skipped without a word (the job vanished from the output).
NAMELESS_CASES = {
    "job-file-named-only-yaml": Case({"jobs/.yaml": VALID_JOB}),
    "job-file-named-dot-dot-yaml": Case({"jobs/..yaml": VALID_JOB}),
}

CASES: dict[str, Case] = {
    **NAMELESS_CASES,
    **ENV_CASES,
    **DIFF_CASES,
    **INDEX_CASES,
    **IMPORT_READ_CASES,
    **IMPORT_SHAPE_CASES,
    **PATH_CASES,
    **OUTPUT_CASES,
}
