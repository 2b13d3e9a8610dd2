"""Hostile input files: how kgen reads jobs, overlays, kgen.yaml, CRDs and imports.

Every input file is a regular file inside the project, read without blocking and never
past its limit; every scalar is what its tag says or a located error; a document is
bounded by what its aliases expand to; a CRD never makes kgen retrieve anything.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.hostile.case import (
    OUTSIDE_FILE,
    VALID_JOB,
    Case,
    Content,
    Fifo,
    Link,
    job,
    job_with,
)

IMPORT = ("import", "manifest.yaml", "--out", "imported")
WITH_CRD = "crds: [crds/pytorchjob.yaml]\nenvironments:\n  dev: [v1]\n"

PYTORCHJOB = """\
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
            - {name: pytorch, image: "registry.example.com/train:1.0"}
"""


def _crd(spec: str, labels: str = "{type: object}") -> str:
    """A PyTorchJob CRD that accepts what kgen renders, with `spec` and `labels` as
    the schemas of those two places."""
    return f"""\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: pytorchjobs.kubeflow.org}}
spec:
  group: kubeflow.org
  names: {{kind: PyTorchJob, plural: pytorchjobs}}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
          properties:
            metadata:
              type: object
              x-kubernetes-preserve-unknown-fields: true
              properties:
                labels: {labels}
            spec: {spec}
"""


def _with_crd(crd: Content) -> dict[str, Content]:
    return {"kgen.yaml": WITH_CRD, "crds/pytorchjob.yaml": crd}


# Plain scalars ruamel's YAML 1.2 resolver types as numbers (its patterns allow a sign,
# a prefix or a point followed only by underscores) that are no number at all.
_NOT_NUMBERS = {
    "minus": "-_",
    "plus": "+_",
    "hex": "0x_",
    "binary": "0b_",
    "octal": "0o_",
    "point": "._",
}


def _not_numbers() -> dict[str, Case]:
    cases = {}
    for name, text in _NOT_NUMBERS.items():
        cases[f"not-a-number-{name}-in-job"] = Case(job_with(f"description: {text}"))
        cases[f"not-a-number-{name}-in-overlay"] = Case(
            {"overlays/v1.yaml": f"target: v1\ndescription: {text}\n"}
        )
        cases[f"not-a-number-{name}-in-project-file"] = Case(
            {"kgen.yaml": f"environments:\n  dev: [v1]\njobNames: {text}\n"}
        )
    return cases


def _amplified(anchor: int, repeats: int) -> str:
    """A job whose args repeat one `anchor`-character string `repeats` times."""
    aliases = ", ".join(["*long"] * repeats)
    return f'{VALID_JOB}description: &long "{"x" * anchor}"\nargs: [{aliases}]\n'


def _amplified_keys(anchor: int, repeats: int) -> str:
    keys = "".join(f"  ? *k{i % 2}\n  : {i}\n" for i in range(repeats))
    return (
        f"{VALID_JOB}description: [&k0 {'a' * anchor}, &k1 {'b' * anchor}]\n"
        f"labels:\n{keys}"
    )


def _documents(count: int) -> str:
    return "".join(
        f"---\nkind: ConfigMap\nmetadata: {{name: c{i}}}\n" for i in range(count)
    )


def _alias_bomb_per_document(documents: int) -> str:
    """Documents each expanding to 60,000 values: under the limit alone, not together."""
    bomb = (
        "a: &a [" + ",".join(["x"] * 300) + "]\nb: [" + ",".join(["*a"] * 200) + "]\n"
    )
    return "".join(f"---\n{bomb}" for _ in range(documents)) + "---\n" + PYTORCHJOB


def _name_not_utf8(root: Path) -> None:
    # Bytes that are not UTF-8: os.scandir gives them back as surrogate escapes.
    jobs = os.fsencode(root / "jobs")
    os.rename(jobs + b"/train.yaml", jobs + b"/tr\xffin.yaml")


def _jobs_folder_outside(root: Path) -> None:
    shutil.rmtree(root / "jobs")
    (root / "jobs").symlink_to("../outside")


CASES: dict[str, Case] = {
    **_not_numbers(),
    "not-a-number-through-import": Case(
        {"manifest.yaml": PYTORCHJOB.replace("replicas: 1", "replicas: 0x_")},
        args=IMPORT,
    ),
    # --- scalars whose tag and text disagree, and integers Python will not print
    "int-tag-on-words": Case(job_with("description: !!int abc")),
    "float-tag-on-words": Case(job_with("description: !!float abc")),
    "bool-tag-on-yes": Case(
        job_with("description: !!bool yes"), about="yes is no YAML 1.2 boolean"
    ),
    "null-tag-on-words": Case(job_with("description: !!null nothing")),
    "int-tag-in-project-file": Case(
        {"kgen.yaml": "environments:\n  dev: [v1]\njobNames: !!int plain\n"}
    ),
    "integer-of-5000-digits": Case(job_with("description: " + "9" * 5000)),
    "hex-integer-of-5000-digits": Case(job_with("description: 0x" + "f" * 5000)),
    "integer-of-5000-digits-in-overlay-label": Case(
        {
            "overlays/v1.yaml": "target: v1\npatch:\n  labels: {build: "
            + "1" * 5000
            + "}\n"
        }
    ),
    "integer-of-99-digits-in-label": Case(
        job_with("labels: {build: " + "9" * 99 + "}"),
        about="under the bound: an ordinary wrong type",
    ),
    "non-specific-tag-keeps-a-string": Case(
        job_with("labels: {build: ! 010}"),
        expected_exit=0,
        about="'!' makes a scalar a string (YAML 1.2, 6.9.2)",
    ),
    # --- directives
    "yaml-1-1-directive": Case(
        job("%YAML 1.1\n---\n" + VALID_JOB.replace("replicas: 2", "replicas: 010")),
        about="1.1 reads 010 as 8; kgen would have read 10",
    ),
    "yaml-1-1-directive-in-project-file": Case(
        {"kgen.yaml": "%YAML 1.1\n---\nenvironments:\n  dev: [v1]\n"}
    ),
    "yaml-1-2-directive-is-accepted": Case(
        job("%YAML 1.2\n---\n" + VALID_JOB), expected_exit=0
    ),
    "tag-directive": Case(
        job(
            "%TAG !k! tag:yaml.org,2002:\n---\n" + VALID_JOB + "description: !k!int 3\n"
        )
    ),
    "import-reports-each-document-at-its-line": Case(
        {
            "manifest.yaml": "kind: ConfigMap\nmetadata: {name: a}\n---\n"
            + PYTORCHJOB.replace("replicas: 1", "replicas: !!int one")
            + "---\n"
            + PYTORCHJOB.replace("name: train", "name: -_")
        },
        args=IMPORT,
        about="documents load one by one; each problem at its line of the file",
    ),
    "yaml-1-1-directive-through-import": Case(
        {"manifest.yaml": "%YAML 1.1\n---\n" + PYTORCHJOB}, args=IMPORT
    ),
    # --- what expands: aliases counted in characters, not only values
    "alias-repeats-a-long-string": Case(
        job(_amplified(20_000, 10_000)), about="60 KB that was 200 MB of arguments"
    ),
    "alias-repeats-long-keys": Case(job(_amplified_keys(20_000, 1_000))),
    "alias-repeats-under-the-limit": Case(
        job(_amplified(20_000, 90)),
        expected_exit=0,
        about="1.8 million characters: allowed, and within the time and memory bounds",
    ),
    "values-past-the-limit-without-aliases": Case(
        job_with("args: [" + ", ".join(["a"] * 100_000) + "]"),
        about="the hint must not blame aliases there are none of",
    ),
    "block-list-past-the-limit": Case(
        job_with("args:\n" + "  - a\n" * 100_000),
        about="counted from events: composing 100,000 values first took seconds",
    ),
    "import-of-20000-documents": Case(
        {"manifest.yaml": _documents(20_000)}, args=IMPORT
    ),
    "import-alias-bombs-across-documents": Case(
        {"manifest.yaml": _alias_bomb_per_document(3)}, args=IMPORT
    ),
    "import-file-over-the-size-limit": Case(
        {"manifest.yaml": PYTORCHJOB + "# " + "x" * 1_100_000 + "\n"}, args=IMPORT
    ),
    "import-latin1-byte": Case(
        {"manifest.yaml": PYTORCHJOB.encode() + b"# caf\xe9\n"}, args=IMPORT
    ),
    # --- files that are not regular files: a FIFO would block the read forever
    "job-file-is-a-fifo": Case({"jobs/train.yaml": Fifo()}),
    "overlay-is-a-fifo": Case({"overlays/v1.yaml": Fifo()}),
    "project-file-is-a-fifo": Case({"kgen.yaml": Fifo()}),
    "crd-is-a-fifo": Case(_with_crd(Fifo())),
    "import-argument-is-a-fifo": Case({"manifest.yaml": Fifo()}, args=IMPORT),
    # --- links
    "job-link-loop": Case({"jobs/train.yaml": Link("jobs/train.yaml")}),
    "job-link-chain-loop": Case(
        {
            "jobs/train.yaml": Link("jobs/other.yaml"),
            "jobs/other.yaml": Link("jobs/train.yaml"),
        }
    ),
    "validate-names-a-link-loop": Case(
        {"jobs/train.yaml": Link("jobs/train.yaml")},
        args=("validate", "jobs/train.yaml"),
    ),
    "overlay-link-loop": Case({"overlays/v1.yaml": Link("overlays/v1.yaml")}),
    "project-file-links-out-of-project": Case({"kgen.yaml": Link(OUTSIDE_FILE)}),
    "crd-links-out-of-project": Case(_with_crd(Link(OUTSIDE_FILE))),
    "crd-option-outside-project": Case(
        {},
        args=("validate", "--crd", OUTSIDE_FILE),
        about="--crd too reads inside only",
    ),
    "jobs-folder-links-out-of-project": Case({}, prepare=_jobs_folder_outside),
    # --- file names kgen cannot print
    "job-file-name-not-utf8": Case({}, prepare=_name_not_utf8),
    "job-file-name-with-newline": Case(
        {"jobs/train.yaml": None, "jobs/tr\nain.yaml": VALID_JOB}
    ),
    # --- CRDs: references stay inside the document, nothing is retrieved
    "crd-ref-http": Case(_with_crd(_crd('{$ref: "http://127.0.0.1:9/spec.json"}'))),
    "crd-ref-file": Case(_with_crd(_crd('{$ref: "file:///etc/passwd"}'))),
    "crd-ref-relative-file": Case(_with_crd(_crd(f'{{$ref: "../{OUTSIDE_FILE}"}}'))),
    "crd-ref-to-nowhere": Case(_with_crd(_crd('{$ref: "#/definitions/spec"}'))),
    "crd-ref-inside-is-followed": Case(
        _with_crd(
            _crd(
                '{$ref: "#/properties/metadata/properties/labels"}',
                "{type: object, required: [team]}",
            )
        ),
        about="the job's spec has no team: the local $ref is resolved, and checked",
    ),
    "crd-schema-invalid": Case(_with_crd(_crd("{type: 5}"))),
    "crd-catastrophic-pattern": Case(
        {
            **_with_crd(
                _crd(
                    "{type: object}",
                    "{type: object, x-kubernetes-preserve-unknown-fields: true,"
                    ' properties: {team: {type: string, pattern: "^(a+)+$"}}}',
                )
            ),
            "jobs/train.yaml": VALID_JOB + "labels: {team: " + "a" * 60 + "-b}\n",
        },
        about="exponential for a backtracking engine; linear here",
    ),
    "crd-versions-not-a-list": Case(
        _with_crd(
            "kind: CustomResourceDefinition\nspec: {group: kubeflow.org,"
            " names: {kind: PyTorchJob}, versions: 3}\n"
        )
    ),
    # --- a kgen.yaml that multiplies the work
    "thirty-thousand-environments": Case(
        {
            "kgen.yaml": "environments:\n"
            + "".join(f"  e{i}: [v1]\n" for i in range(30_000))
        },
        about="each environment renders every job: minutes of work, refused first",
    ),
    "an-overlay-listed-fifty-thousand-times": Case(
        {"kgen.yaml": "environments:\n  dev: [" + ", ".join(["v1"] * 50_000) + "]\n"}
    ),
    "argocd-repo-url-with-credentials": Case(
        {
            "kgen.yaml": "environments: {dev: [v1]}\nargocd:\n"
            "  repoURL: https://deploy:hunter2-pw@git.example.com/ml.git\n"
        },
        about="written into argocd/ and committed; the message masks the password",
    ),
    "argocd-repo-url-with-a-token": Case(
        {
            "kgen.yaml": "environments: {dev: [v1]}\nargocd:\n"
            "  repoURL: https://ghp_0123456789abcdefghijABCDEFGHIJ012345@github.com/o/r\n"
        },
        args=("argocd",),
    ),
    "argocd-prefix-with-an-escape": Case(
        {
            "kgen.yaml": "environments: {dev: [v1]}\nargocd:\n"
            '  repoURL: https://git.example.com/ml.git\n  namePrefix: "a\\e[31m"\n'
        },
        args=("argocd",),
    ),
}
