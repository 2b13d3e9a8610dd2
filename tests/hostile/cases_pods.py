"""Hostile inputs against whole pods, patches and the project's own objects (issue 18).

`resources/` is input like jobs/: a pull request can put links, pipes, huge files,
Secrets and names that would form paths there, and each is refused with a message and
exit 1, nothing written."""

from __future__ import annotations

from tests.hostile.case import OUTSIDE_DIR, OUTSIDE_FILE, VALID_JOB, Case, Fifo, Link

BUILD = ("build",)
IMPORT = ("import", "manifest.yaml", "--out", "imported")
QUOTA = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: training}
spec:
  hard: {requests.cpu: "8"}
"""


def _object(kind: str, name: str, api: str = "v1", rest: str = "") -> str:
    return f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n{rest}"


CASES: dict[str, Case] = {
    "resources-name-forms-a-path": Case(
        {"resources/dev/quota.yaml": _object("ConfigMap", "../../../outside/x")},
        args=BUILD,
        about="metadata.name names the output file: a path in it must never be one",
    ),
    "resources-secret-is-refused": Case(
        {
            "resources/secret.yaml": _object(
                "Secret", "db", rest="stringData: {password: hunter2-not-shown}\n"
            )
        },
        args=BUILD,
        about="kgen never writes a credential to git, nor echoes one",
    ),
    "resources-file-links-outside": Case(
        {"resources/leak.yaml": Link(OUTSIDE_FILE)},
        about="a link to a file outside the project is refused, never read",
    ),
    "resources-folder-links-outside": Case(
        {"resources": Link(OUTSIDE_DIR)},
        about="the folder itself a link out of the project",
    ),
    "resources-env-folder-is-a-link": Case(
        {"resources/dev": Link(OUTSIDE_DIR)},
        about="an environment's folder linked away is neither followed nor dropped",
    ),
    "resources-file-is-a-fifo": Case(
        {"resources/dev/quota.yaml": Fifo()},
        about="a named pipe never blocks the read",
    ),
    "resources-file-too-large": Case(
        {"resources/big.yaml": QUOTA + "#" * (2 * 1024 * 1024) + "\n"},
        about="bounded like every input",
    ),
    "resources-object-duplicates-a-job-object": Case(
        {
            "jobs/train.yaml": VALID_JOB
            + "volumes:\n  - {name: data, claim: data, mountPath: /data,"
            + " create: {size: 1Gi, accessModes: [ReadWriteMany]}}\n",
            "resources/dev/claim.yaml": _object(
                "PersistentVolumeClaim",
                "data",
                rest="spec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 2Gi}}\n",
            ),
        },
        args=BUILD,
        about="one output file, two sources: refused at the team's object",
    ),
    "resources-defined-twice": Case(
        {"resources/quota.yaml": QUOTA, "resources/dev/quota.yaml": QUOTA},
        about="the shared object and dev's own would be one file",
    ),
    "resources-folder-of-no-environment": Case(
        {"resources/prod/quota.yaml": QUOTA},
        about="a typo in an environment's folder would drop its objects silently",
    ),
    "resources-folder-below-an-environment": Case(
        {"resources/dev/monitoring/quota.yaml": QUOTA},
        args=BUILD,
        about="a folder below an environment's was skipped silently: its objects never"
        " shipped; now an error at the folder, and nothing written",
    ),
    "resources-kind-kgen-cannot-check": Case(
        {"resources/widget.yaml": _object("Widget", "w", api="example.com/v1")},
        about="no core kind, no CRD: refused rather than copied unchecked",
    ),
    "resources-unknown-field": Case(
        {"resources/dev/quota.yaml": QUOTA + "  scopeSelectr: {}\n"},
        about="strict, as the API server would prune it silently",
    ),
    "resources-not-a-mapping": Case(
        {"resources/list.yaml": "- a\n- b\n"},
    ),
    "output-file-added-by-hand": Case(
        {"manifests/dev/quota.yaml": QUOTA},
        args=BUILD,
        expected_exit=0,
        about="attack F4: kept, and told where it belongs (build --check: test_cli)",
    ),
    "sidecar-name-with-escapes": Case(
        {
            "jobs/train.yaml": VALID_JOB
            + 'containers:\n  - {name: "pytorch\\u001b[31m", image: "x:1"}\n'
            + '  - {name: pytorch, image: "x:1"}\n'
        },
        about="a container's name reaches the message escaped",
    ),
    "sidecars-too-many": Case(
        {
            "jobs/train.yaml": VALID_JOB
            + "containers:\n"
            + "".join(f"  - {{name: c{i}, image: 'x:1'}}\n" for i in range(10_001))
        },
        about="bounded before each is checked",
    ),
    "import-object-name-forms-a-path": Case(
        {
            # No job: an import that writes its folder cannot run twice (bounds.py).
            "manifest.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ../../../outside/x}\n"
            + "---\napiVersion: v1\nkind: Config/../../x\nmetadata: {name: y}\n"
        },
        args=IMPORT,
        about="an object's name and kind name the file it is imported to",
    ),
    "import-secret-beside-a-job": Case(
        {
            "manifest.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\n"
            + "stringData: {password: hunter2-not-shown}\n"
        },
        args=IMPORT,
        about="never copied into git, and its value never echoed",
    ),
}
