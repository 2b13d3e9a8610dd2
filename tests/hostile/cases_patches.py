"""Hostile inputs against `patches:` (docs/patches.md): a pull request can put a patch
in any job or overlay, so patches are bounded (count, operations, pointer length and
depth, values added), never rename an object into a path, never echo what a `test`
compares, and never slip host access past the rules."""

from __future__ import annotations

from tests.hostile.case import VALID_JOB, Case, Content, job

BUILD = ("build",)
MASTER = "/spec/pytorchReplicaSpecs/Master/template/spec"


def _patched(patches: str) -> dict[str, Content]:
    return job(VALID_JOB + "patches:\n" + patches)


def _ops(*ops: str) -> str:
    return "  - ops:\n" + "".join(f"      - {op}\n" for op in ops)


CASES: dict[str, Case] = {
    "patches-copy-doubles-the-object": Case(
        _patched(
            _ops(*(f"{{op: copy, from: /spec, path: /spec/c{i}}}" for i in range(60)))
        ),
        args=BUILD,
        about="each copy doubles the object: 60 would be 2^60 values; refused at"
        " 100,000 added, at the copy that crosses it, nothing written",
    ),
    "patches-pointer-too-long": Case(
        _patched(
            _ops("{op: add, path: /metadata/labels/" + "a" * 5_000 + ", value: x}")
        ),
        about="a pointer longer than any path in an object is refused before use",
    ),
    "patches-pointer-too-deep": Case(
        _patched(_ops("{op: add, path: " + "/a" * 200 + ", value: x}")),
        about="depth is bounded as the loader bounds nesting",
    ),
    "patches-too-many": Case(
        _patched(
            "".join("  - merge: {metadata: {labels: {a: b}}}\n" for _ in range(101))
        ),
        about="at most 100 patches in one file",
    ),
    "patches-too-many-ops": Case(
        _patched(
            _ops(
                *("{op: add, path: /metadata/labels/a, value: b}" for _ in range(1_001))
            )
        ),
        about="at most 1,000 operations in one patch",
    ),
    "patches-huge-list-index": Case(
        _patched(
            _ops(
                f"{{op: add, path: {MASTER}/containers/99999999999999999999999, value: {{}}}}"
            )
        ),
        about="an index past the list's end is a located error, not a huge allocation",
    ),
    "patches-rename-into-a-path": Case(
        _patched(
            _ops("{op: replace, path: /metadata/name, value: ../../../outside/x}")
        ),
        args=BUILD,
        about="the name names the output file: a patch never changes it",
    ),
    "patches-merge-moves-namespace": Case(
        _patched("  - merge: {metadata: {namespace: kube-system}}\n"),
        args=BUILD,
        about="a merge may not move the job into another namespace",
    ),
    "patches-test-never-echoes-values": Case(
        _patched(
            _ops(
                f"{{op: add, path: {MASTER}/containers/0/env, value: [{{name: DB_PASSWORD, value: hunter2-not-shown}}]}}",
                f"{{op: test, path: {MASTER}/containers/0/env/0/value, value: guessed-secret-not-shown}}",
            )
        ),
        about="a failed test quotes neither the rendered value nor the guess",
    ),
    "patches-write-a-secret-env": Case(
        _patched(
            _ops(
                f"{{op: add, path: {MASTER}/containers/0/env, value: [{{name: DB_PASSWORD, value: hunter2-not-shown}}]}}",
                "{op: add, path: /metadata/annotations, value: {note: 'https://ci:hunter3-not-shown@git.example.com/x.git'}}",
            )
        ),
        args=BUILD,
        about="the secret rules read what a patch wrote too, and never quote it",
    ),
    "patches-slip-a-privileged-container": Case(
        _patched(
            _ops(
                f"{{op: add, path: {MASTER}/containers/-, value: {{name: root, image: 'busybox:1.36', securityContext: {{privileged: true}}}}}}",
                f"{{op: add, path: {MASTER}/hostNetwork, value: true}}",
            )
        ),
        args=BUILD,
        about="what the spec rules cannot see, the rules over the patched pods do",
    ),
    "patches-merge-a-long-list": Case(
        _patched(
            "  - merge:\n      spec: {pytorchReplicaSpecs: {Master: {template: {spec:"
            " {containers: [{name: pytorch, env: ["
            + ", ".join(f"{{name: V{i}, value: x}}" for i in range(3_000))
            + "]}]}}}}}\n"
        ),
        expected_exit=0,
        about="items found by key through an index: 3,000 env entries merged by name"
        " cost their number, not its square",
    ),
    "patches-merge-directive-bomb": Case(
        _patched(
            "  - merge:\n      spec: {$setElementOrder/pytorchReplicaSpecs: [a, b]}\n"
        ),
        about="only $patch directives; anything else is refused, not ignored",
    ),
    "patches-metadata-quoted-short-and-masked": Case(
        _patched(
            "  - merge:\n      metadata:\n"
            f"        annotations: {{'{'y' * 1_000}': x}}\n"
            f"        labels: {{team: '{'q' * 1_000}', db-password: 'hunter2 not shown'}}\n"
        ),
        about="a label or annotation a patch writes is quoted as the spec's is: cut"
        " short, and never under a secret's name",
    ),
}
