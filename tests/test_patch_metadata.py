"""Labels and annotations a patch writes are held to the spec's rules: a key or label
value the API server refuses, or annotations over 256 KiB in all, are the spec's
`invalid-value` errors at the patch line (kgen.patch.metadata)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import RunKgen
from tests.test_patches import _project, _validate

_KEY = (
    "'-bad-' is not a valid key: an optional DNS prefix and '/', then at most 63"
    " letters, digits, '-', '_' or '.', starting and ending alphanumeric"
    " (invalid-value)"
)
_VALUE = (
    "'bad value!' is not a valid label value: at most 63 letters, digits, '-', '_'"
    " or '.', starting and ending alphanumeric (invalid-value)"
)
_SIZE = (
    "the annotations are 300,003 bytes (keys and values); the API server takes at"
    " most 262,144 (256 KiB) in all (invalid-value)"
)
_BIG = "a" * 300_000


def test_a_label_a_patch_writes_is_checked_at_its_line(
    tmp_path: Path, run_kgen: RunKgen
):
    patches = (
        "  - ops:\n"
        "      - {op: add, path: /metadata/labels, value: {ok: fine, z: 'bad value!'}}\n"
        "      - {op: add, path: /metadata/labels/-bad-, value: x}\n"
    )
    code, output = _validate(run_kgen, _project(tmp_path, patches))
    assert code == 1
    assert output.splitlines() == [
        f"jobs/train.yaml:8:64: error: {_VALUE}",
        f"jobs/train.yaml:9:56: error: {_KEY}",
    ]
    assert run_kgen("build", cwd=tmp_path / "project").code == 1


def test_a_pod_template_label_a_merge_writes_is_checked(
    tmp_path: Path, run_kgen: RunKgen
):
    patches = (
        "  - merge:\n"
        "      spec:\n"
        "        pytorchReplicaSpecs:\n"
        "          Worker:\n"
        "            template:\n"
        "              metadata:\n"
        "                labels: {-bad-: x}\n"
    )
    code, output = _validate(run_kgen, _project(tmp_path, patches))
    assert (code, output.splitlines()) == (1, [f"jobs/train.yaml:13:33: error: {_KEY}"])


def test_annotations_over_256_kib_are_refused_from_a_patch(
    tmp_path: Path, run_kgen: RunKgen
):
    patches = f"  - ops:\n      - {{op: add, path: /metadata/annotations, value: {{big: '{_BIG}'}}}}\n"
    code, output = _validate(run_kgen, _project(tmp_path, patches))
    assert (code, output.splitlines()) == (1, [f"jobs/train.yaml:8:55: error: {_SIZE}"])


def test_and_from_the_spec(tmp_path: Path, run_kgen: RunKgen):
    root = _project(tmp_path)
    job = root / "jobs/train.yaml"
    job.write_text(job.read_text() + f"annotations:\n  big: '{_BIG}'\n")
    code, output = _validate(run_kgen, root)
    assert (code, output.splitlines()) == (1, [f"jobs/train.yaml:7:3: error: {_SIZE}"])


def test_and_from_a_roles_pod_annotations(tmp_path: Path, run_kgen: RunKgen):
    root = _project(tmp_path)
    job = root / "jobs/train.yaml"
    text = job.read_text().replace(
        "  worker: {replicas: 1}\n",
        f"  worker:\n    replicas: 1\n    podAnnotations: {{big: '{_BIG}'}}\n",
    )
    job.write_text(text)
    code, output = _validate(run_kgen, root)
    assert (code, output.splitlines()) == (1, [f"jobs/train.yaml:7:21: error: {_SIZE}"])


def test_valid_labels_and_annotations_from_a_patch_pass(
    tmp_path: Path, run_kgen: RunKgen
):
    patches = (
        "  - ops:\n"
        "      - {op: add, path: /metadata/labels/example.com~1team, value: vision}\n"
        "      - {op: add, path: /metadata/annotations, value: {note: 'any text!'}}\n"
    )
    code, output = _validate(run_kgen, _project(tmp_path, patches))
    assert (code, output) == (0, output)
    assert "error" not in output


_LIFECYCLE_HINT = (
    "    hint: kgen writes what a GitOps tool applies: the API server and the"
    " controllers set these on objects they create, never a manifest"
)


@pytest.mark.parametrize(
    ("patches", "field", "line", "column"),
    [
        (
            "  - ops:\n"
            "      - op: add\n"
            "        path: /metadata/ownerReferences\n"
            "        value: [{apiVersion: v1, kind: ConfigMap, name: x, uid: '1'}]\n",
            "ownerReferences",
            10,
            16,
        ),
        (
            "  - merge: {metadata: {finalizers: [example.com/keep]}}\n",
            "finalizers",
            7,
            36,
        ),
        (
            "  - ops:\n      - {op: add, path: /metadata/generateName, value: train-}\n",
            "generateName",
            8,
            56,
        ),
    ],
)
def test_a_patch_may_not_write_what_the_cluster_sets(
    tmp_path: Path, run_kgen: RunKgen, patches: str, field: str, line: int, column: int
):
    # generateName cannot be applied at all (kubectl apply, Argo CD and Flux key an
    # object by its name); an owner reference makes the garbage collector delete the
    # job with an owner it does not know (its uid is another cluster's or none); a
    # finalizer nothing removes keeps the job from ever being deleted.
    root = _project(tmp_path, patches)
    result = run_kgen("validate", cwd=root)
    assert result.code == 1
    assert (result.out + result.err).splitlines()[:2] == [
        f"jobs/train.yaml:{line}:{column}: error: a patch may not write"
        f" metadata.{field} of the rendered PyTorchJob 'train' (patch-lifecycle)",
        _LIFECYCLE_HINT,
    ]
