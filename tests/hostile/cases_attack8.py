"""Hostile inputs of the eighth round: values of a type the schema refuses, reached by a
rule that runs beside the schema check and read them as the type they should be; names
that reach the output's file names from where nothing checked them as names."""

from __future__ import annotations

from tests.hostile.case import BASE, VALID_JOB, Case, Content, job, job_with


def _crd(kind: str) -> str:
    return f"""\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: widgets.example.com}}
spec:
  group: example.com
  scope: Namespaced
  names: {{kind: "{kind}", plural: widgets, singular: widget}}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}
"""


def _team_object_of_kind(kind: str) -> dict[str, Content]:
    """A project CRD of `kind` and a team object of it."""
    with_crd = (BASE / "kgen.yaml").read_text() + "crds: [crds/widget.yaml]\n"
    return {
        "kgen.yaml": with_crd,
        "crds/widget.yaml": _crd(kind),
        "resources/w.yaml": f'apiVersion: example.com/v1\nkind: "{kind}"\nmetadata: {{name: w}}\n',
    }


_SIDECAR = """\
  - name: side
    image: registry.example.com/side:1
    restartPolicy: Always
"""

CASES: dict[str, Case] = {
    # A sidecar's volumeMounts were walked as a list whenever they were not empty: a
    # number (1, .nan, true) ended the run as an internal error, exit 3.
    "attack8-init-container-mounts-a-number": Case(
        job(VALID_JOB + "initContainers:\n" + _SIDECAR + "    volumeMounts: .nan\n"),
        about="an init container's volumeMounts written as a number",
    ),
    "attack8-sidecar-mounts-a-boolean": Case(
        job(VALID_JOB + "containers:\n" + _SIDECAR + "    volumeMounts: true\n"),
        about="a sidecar's volumeMounts written as a boolean",
    ),
    "attack8-role-sidecar-mounts-an-integer": Case(
        job(
            VALID_JOB.replace(
                "  worker: {replicas: 2}\n",
                "  worker:\n    replicas: 2\n    containers:\n"
                + _SIDECAR.replace("  ", "      ", 1).replace("\n    ", "\n        ")
                + "        volumeMounts: 1\n",
            )
        ),
        about="a role's sidecar's volumeMounts written as an integer",
    ),
    # A team object's kind makes its output file's name (<name>.<kind>.yaml), and was
    # checked only against the project's CRDs, whose kind nothing checked: a build
    # wrote manifests/dev/w.a|`b`<c>.yaml, a name its own index refuses, so every
    # command after it failed on the index until it was restored from git.
    "attack8-team-object-kind-not-a-kind": Case(
        _team_object_of_kind("A|`b`<c>"),
        args=("build",),
        about="a CRD's kind with characters no kind has, and a team object of it",
    ),
    "attack8-team-object-kind-a-path": Case(
        _team_object_of_kind("../x"),
        args=("build",),
        about="a CRD's kind that climbs out of the environment's folder",
    ),
    "attack8-team-object-kind-with-a-dash": Case(
        _team_object_of_kind("Wid-get2"),
        args=("build",),
        expected_exit=0,
        about="a kind the API server takes: letters, digits and '-'",
    ),
    # A job's strings may hold no control character but tab and line breaks
    # (control-character); a team object's were copied into the output as they were:
    # an ESC that repaints the terminal of whoever reads the ConfigMap, a NUL.
    "attack8-team-object-control-characters": Case(
        {
            "resources/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
            '  name: cm\n  annotations: {note: "a\\x07b"}\n'
            'data: {a: "x\\e[31mred", b: "c\\x00d", ok: "tab\\there\\nline"}\n'
        },
        args=("build",),
        about="an ESC, a BEL and a NUL in a team ConfigMap; a tab and newline are fine",
    ),
    # Bidirectional overrides and isolates (Trojan Source, CVE-2021-42574) reached
    # the manifests as they were: an argument that reads "--lr 0.1" in review and in
    # `kgen explain` runs as written, and the reviewer of the output sees the lie.
    "attack8-bidi-override-in-an-argument": Case(
        job_with('args: ["--lr", "0.1\\u202e\\u2066 --evil"]'),
        about="RIGHT-TO-LEFT OVERRIDE and LEFT-TO-RIGHT ISOLATE in an argument",
    ),
    "attack8-bidi-override-in-a-team-object": Case(
        {
            "resources/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"
            'data: {run.sh: "echo ok \\u2067# harmless"}\n'
        },
        args=("build",),
        about="RIGHT-TO-LEFT ISOLATE in a team ConfigMap's script",
    ),
    "attack8-bidi-marks-are-text": Case(
        job_with('annotations: {title: "\u05e9\u05dc\u05d5\u05dd\u200f!"}'),
        expected_exit=0,
        about="a RIGHT-TO-LEFT MARK in Hebrew text is text, not an override",
    ),
}
