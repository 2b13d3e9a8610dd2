"""`patches:` on jobs and overlays (issue 18): RFC 6902 operations and strategic merges
applied to the rendered objects, each problem at the patch's own line, the result
checked against the schemas and the host-access rules, and `kgen explain` naming the
patch line as the source of what it wrote. The exact output of a project using every
kind of patch is tests/cases/positive/patches."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from kgen.check import core
from kgen.load.document import Origin
from kgen.patch.context import Patching
from kgen.patch.marks import Budget, PatchMarks
from kgen.patch.strategic import MERGE_KEYS, merge_into
from tests.conftest import RunKgen, write_tree

KGEN_YAML = """\
environments:
  dev: [v1, extra]
lint:
  ignore: {resources-missing: minimal specs}
"""
JOB = """\
framework: pytorch
image: registry.example.com/train:1.0
roles:
  master: {replicas: 1}
  worker: {replicas: 1}
"""
MASTER = "/spec/pytorchReplicaSpecs/Master/template/spec"


def _project(tmp_path: Path, patches: str = "", overlay: str = "") -> Path:
    root = tmp_path / "project"
    write_tree(
        root,
        {
            "kgen.yaml": KGEN_YAML,
            "overlays/v1.yaml": "target: v1\n",
            "overlays/extra.yaml": overlay or "description: nothing\n",
            "jobs/train.yaml": JOB + (f"patches:\n{patches}" if patches else ""),
        },
    )
    return root


def _validate(run_kgen: RunKgen, root: Path) -> tuple[int, str]:
    """The exit code and each problem's line (parsable: one line a problem)."""
    result = run_kgen("validate", "--format", "parsable", cwd=root)
    output = result.out + result.err
    for severity in ("error", "warning"):
        output = output.replace(f": [{severity}] ", f": {severity}: ")
    return result.code, output


# Lines of JOB are 1-5; `patches:` is line 6, so a patch's first line is 7.


@pytest.mark.parametrize(
    ("patches", "expected"),
    [
        (
            "  - ops:\n      - {op: remove, path: /spec/pytorchReplicaSpecs/Chief}\n",
            "jobs/train.yaml:8:28: error: 'remove' at /spec/pytorchReplicaSpecs/Chief:"
            " the rendered PyTorchJob 'train' has nothing there (patch-path-missing)",
        ),
        (
            "  - ops:\n      - {op: add, path: /spec/elasticPolicy/maxReplicas, value: 4}\n",
            "jobs/train.yaml:8:25: error: 'add' at /spec/elasticPolicy/maxReplicas:"
            " the rendered PyTorchJob 'train' has nothing at /spec/elasticPolicy"
            " (patch-path-missing)",
        ),
        (
            "  - ops:\n      - {op: add, path: "
            + MASTER
            + "/containers/5, value: {}}\n",
            f"jobs/train.yaml:8:25: error: 'add' at {MASTER}/containers/5:"
            " the rendered PyTorchJob 'train' has nothing there (patch-path-missing)",
        ),
        (
            "  - ops:\n      - {op: add, path: /spec/runPolicy/suspend/x, value: 1}\n",
            "jobs/train.yaml:8:25: error: 'add' at /spec/runPolicy/suspend/x: the"
            " rendered PyTorchJob 'train' has a single value at /spec/runPolicy/suspend,"
            " not a map or list (patch-path-missing)",
        ),
        (
            "  - ops:\n      - {op: move, from: /spec, path: /spec/x}\n",
            "jobs/train.yaml:8:39: error: 'move' at /spec/x cannot apply to the"
            " rendered PyTorchJob 'train' (patch-path-missing)",
        ),
        (
            "  - ops:\n      - {op: move, from: /spec/nope, path: /spec/x}\n",
            "jobs/train.yaml:8:26: error: 'move' from /spec/nope: the rendered"
            " PyTorchJob 'train' has nothing there (patch-path-missing)",
        ),
        (
            # The value is never quoted: it may be a secret.
            "  - ops:\n      - {op: test, path: /spec/pytorchReplicaSpecs/Master/replicas, value: 2}\n",
            "jobs/train.yaml:8:76: error: 'test' at /spec/pytorchReplicaSpecs/Master/replicas"
            " failed: the rendered PyTorchJob 'train' has another value there"
            " (patch-test-failed)",
        ),
        (
            "  - target: {kind: Deployment}\n    ops:\n      - {op: add, path: /spec/x, value: 1}\n",
            "jobs/train.yaml:7:5: error: the patch's target selects none of the job's"
            " rendered objects (patch-no-target)",
        ),
        (
            "  - target: {kind: PyTorchJob, name: train-r1}\n    merge: {spec: {}}\n",
            "jobs/train.yaml:7:5: error: the patch's target selects none of the job's"
            " rendered objects (patch-no-target)",
        ),
        (
            "  - ops:\n      - {op: replace, path: /metadata/name, value: other}\n",
            "jobs/train.yaml:8:29: error: 'replace' at /metadata/name would change"
            " metadata.name, which names the object (patch-identity)",
        ),
        (
            "  - ops:\n      - {op: remove, path: /metadata}\n",
            "jobs/train.yaml:8:28: error: 'remove' at /metadata would change"
            " metadata.name, which names the object (patch-identity)",
        ),
        (
            "  - ops:\n      - {op: move, from: /metadata/namespace, path: /spec/ns}\n",
            "jobs/train.yaml:8:26: error: 'move' from /metadata/namespace would change"
            " metadata.namespace, which names the object (patch-identity)",
        ),
        (
            "  - merge: {apiVersion: kubeflow.org/v2}\n",
            "jobs/train.yaml:7:13: error: the merge would change apiVersion of the"
            " rendered PyTorchJob 'train', which names the object (patch-identity)",
        ),
        (
            "  - merge: {metadata: {name: other}}\n",
            "jobs/train.yaml:7:24: error: the merge would change metadata.name of"
            " the rendered PyTorchJob 'train', which names the object (patch-identity)",
        ),
        (
            "  - merge:\n      spec: {pytorchReplicaSpecs: {Master: {template: {spec:"
            " {containers: [{image: x}]}}}}}\n",
            "jobs/train.yaml:8:76: error: an item merged into containers needs its merge"
            " key 'name' (patch-merge)",
        ),
        (
            "  - merge: {spec: {$retainKeys: [a]}}\n",
            "jobs/train.yaml:7:20: error: '$retainKeys' is not a directive kgen applies"
            " (patch-merge)",
        ),
        (
            "  - ops:\n      - {op: replace, path: /spec/pytorchReplicaSpecs/Worker/replicas, value: 8}\n",
            "jobs/train.yaml:8:79: error: the rendered PyTorchJob 'train': a patch changes"
            " spec.pytorchReplicaSpecs.Worker.replicas, which kgen counts from the spec"
            " (patch-counted)",
        ),
        (
            # A copy carries the whole replica spec, its count with it.
            "  - ops:\n      - {op: copy, from: /spec/pytorchReplicaSpecs/Worker,"
            " path: /spec/pytorchReplicaSpecs/Master}\n",
            "jobs/train.yaml:8:66: error: the rendered PyTorchJob 'train': a patch changes"
            " spec.pytorchReplicaSpecs.Master.replicas, which kgen counts from the spec"
            " (patch-counted)",
        ),
        (
            "  - merge:\n      spec: {pytorchReplicaSpecs: {Master: {template: {spec:"
            " {containers: [{name: pytorch, resources: {limits: {amd.com/gpu: 8}}}]}}}}}\n",
            "jobs/train.yaml:8:126: error: the rendered PyTorchJob 'train': a patch changes"
            " spec.pytorchReplicaSpecs.Master.template.spec.containers[0].resources"
            ".limits.amd.com/gpu, which kgen counts from the spec (patch-counted)",
        ),
        (
            "  - ops:\n      - {op: add, path: spec/x, value: 1}\n",
            "jobs/train.yaml:8:25: error: 'spec/x' is not a JSON pointer, which starts"
            " with '/' (RFC 6901): /spec/runPolicy (invalid-value)",
        ),
        (
            "  - ops:\n      - {op: add, path: /spec/a~2b, value: 1}\n",
            "jobs/train.yaml:8:25: error: '/spec/a~2b' has a '~' that is not '~0' (~) or"
            " '~1' (/) (RFC 6901) (invalid-value)",
        ),
        (
            "  - ops:\n      - {op: copy, path: /spec/x}\n",
            "jobs/train.yaml:8:9: error: a 'copy' operation needs 'from' (invalid-value)",
        ),
        (
            "  - ops: [{op: add, path: /spec/x, value: 1}]\n    merge: {spec: {}}\n",
            "jobs/train.yaml:7:5: error: a patch needs exactly one of ops, merge; it has"
            " ops, merge (invalid-value)",
        ),
    ],
    ids=lambda value: value[:40] if isinstance(value, str) else None,
)
def test_a_patch_that_does_not_apply_is_reported_at_its_own_line(
    tmp_path: Path, run_kgen: RunKgen, patches: str, expected: str
):
    code, output = _validate(run_kgen, _project(tmp_path, patches))
    assert code == 1
    assert output.splitlines()[0] == expected


def test_an_overlay_patch_is_reported_in_the_overlay_file(
    tmp_path: Path, run_kgen: RunKgen
):
    overlay = "patches:\n  - ops:\n      - {op: remove, path: /spec/nope}\n"
    code, output = _validate(run_kgen, _project(tmp_path, overlay=overlay))
    assert (code, output.splitlines()[0]) == (
        1,
        "overlays/extra.yaml:3:28: error: 'remove' at /spec/nope: the rendered"
        " PyTorchJob 'train' has nothing there (patch-path-missing)",
    )


def test_a_schema_error_in_what_a_patch_wrote_is_at_the_patch_value(
    tmp_path: Path, run_kgen: RunKgen
):
    patches = f"""\
  - ops:
      - {{op: add, path: /spec/runPolicy/backoffLimit, value: three}}
      - op: add
        path: {MASTER}/containers/-
        value:
          name: debug
          image: busybox:1.36
          ports: [{{containerPort: http}}]
"""
    code, output = _validate(run_kgen, _project(tmp_path, patches))
    assert code == 1
    assert output.splitlines()[:2] == [
        "jobs/train.yaml:8:62: error: the rendered PyTorchJob 'train' is invalid at"
        " spec.runPolicy.backoffLimit: 'three' is not of type 'integer' (output-schema)",
        "jobs/train.yaml:14:35: error: the rendered PyTorchJob 'train' is invalid at"
        " spec.pytorchReplicaSpecs.Master.template.spec.containers[1].ports[0]"
        ".containerPort: 'http' is not of type 'integer' (output-schema)",
    ]


def test_a_field_no_schema_has_is_refused_at_the_patch_line(
    tmp_path: Path, run_kgen: RunKgen
):
    overlay = """\
patches:
  - merge:
      spec:
        pytorchReplicaSpecs:
          Worker: {template: {spec: {containers: [{name: pytorch, stdinn: true}]}}}
"""
    code, output = _validate(run_kgen, _project(tmp_path, overlay=overlay))
    assert (code, output.splitlines()[0]) == (
        1,
        "overlays/extra.yaml:5:75: error: the rendered PyTorchJob 'train' is invalid"
        " at spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].stdinn:"
        " unknown field (the schema has no such property) (output-schema)",
    )


HOST_ACCESS = """\
patches:
  - merge:
      spec:
        pytorchReplicaSpecs:
          Master:
            template:
              spec:
                hostPID: true
                volumes:
                  - {name: node, hostPath: {path: /var/run}}
                containers:
                  - name: pytorch
                    securityContext: {privileged: true}
"""


def test_a_patch_cannot_slip_host_access_past_the_rules(
    tmp_path: Path, run_kgen: RunKgen
):
    code, output = _validate(run_kgen, _project(tmp_path, overlay=HOST_ACCESS))
    assert code == 1
    lines = [line for line in output.splitlines() if line.startswith("overlays/")]
    assert lines == [
        "overlays/extra.yaml:8:26: warning: the rendered PyTorchJob 'train', as a patch"
        " left it: hostPID shares the node's processes with every pod of the object"
        " (host-pid)",
        "overlays/extra.yaml:10:51: error: the rendered PyTorchJob 'train', as a patch"
        " left it: volume 'node' is a hostPath: the pod reads and writes the node's"
        " files (host-path)",
        "overlays/extra.yaml:13:51: error: the rendered PyTorchJob 'train', as a patch"
        " left it: a privileged container is root on the node (privileged-container)",
    ]


def test_host_access_a_patch_writes_is_silenced_as_the_rules_are(
    tmp_path: Path, run_kgen: RunKgen
):
    reasons = (
        "patch:\n  lint:\n    ignore:\n      host-path: node agent socket\n"
        "      host-namespaces: sees the node's processes\n"
        "      privileged-container: loads a kernel module\n"
    )
    root = _project(tmp_path, overlay=HOST_ACCESS + reasons)
    assert _validate(run_kgen, root) == (
        0,
        "kgen: 1 job in 1 environment (1 render): valid\n",
    )


def test_content_hash_names_cover_what_patches_wrote(tmp_path: Path, run_kgen):
    root = _project(
        tmp_path, "  - ops: [{op: add, path: /metadata/labels/x, value: a}]\n"
    )
    (root / "kgen.yaml").write_text("jobNames: content-hash\n" + KGEN_YAML)
    assert run_kgen("build", cwd=root).code == 0
    first = sorted(p.name for p in (root / "manifests/dev").glob("train-*"))
    job = root / "jobs/train.yaml"
    job.write_text(job.read_text().replace("value: a}", "value: b}"))
    assert run_kgen("build", cwd=root).code == 0
    second = sorted(p.name for p in (root / "manifests/dev").glob("train-*"))
    assert len(first) == len(second) == 1
    assert first != second, "a changed patch is a new job under content-hash names"


def test_a_changed_overlay_patch_renders_again_from_a_warm_cache(
    tmp_path: Path, run_kgen: RunKgen
):
    overlay = "patches:\n  - merge: {metadata: {annotations: {team: a}}}\n"
    root = _project(tmp_path, overlay=overlay)
    assert run_kgen("build", cwd=root).code == 0
    assert run_kgen("build", cwd=root).code == 0  # the cache holds every render now
    written = root / "overlays/extra.yaml"
    written.write_text(overlay.replace("team: a", "team: b"))
    assert run_kgen("build", cwd=root).code == 0
    assert "team: b" in (root / "manifests/dev/train.pytorchjob.yaml").read_text()
    assert run_kgen("build", "--check", cwd=root).code == 0


def test_explain_names_the_patch_line_of_each_patched_value(
    tmp_path: Path, run_kgen: RunKgen
):
    patches = f"""\
  - ops:
      - {{op: add, path: {MASTER}/containers/0/stdin, value: true}}
      - {{op: remove, path: /spec/runPolicy/suspend}}
"""
    overlay = """\
patches:
  - merge:
      metadata:
        annotations: {team: vision, owner: ml}
"""
    root = _project(tmp_path, patches, overlay)
    result = run_kgen("explain", "train", "--env", "dev", cwd=root)
    assert result.code == 0, str(result)
    section = result.out.split("patched in the rendered objects (patches:):\n")[1]
    assert section.split("\n\n")[0].splitlines() == [
        f"  PyTorchJob train {STDIN}: true  jobs/train.yaml:8:99",
        "  PyTorchJob train spec.runPolicy.suspend: (removed)        jobs/train.yaml:9:28",
        "  PyTorchJob train metadata.annotations.team: vision        overlays/extra.yaml:4:29",
        "  PyTorchJob train metadata.annotations.owner: ml           overlays/extra.yaml:4:44",
    ]


STDIN = "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].stdin"


# Strategic merge on its own: the lists Kubernetes merges by key (k8s.io/api core/v1
# types.go, tag v0.31.0, patchMergeKey) and the directives.

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p"},
    "spec": {
        "containers": [
            {
                "name": "main",
                "image": "a:1",
                "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                "volumeMounts": [{"name": "d", "mountPath": "/d"}],
                "ports": [{"containerPort": 80, "name": "http"}],
                "args": ["--x"],
            },
            {"name": "side", "image": "s:1"},
        ],
        "volumes": [{"name": "d", "emptyDir": {}}],
        "tolerations": [{"key": "a", "operator": "Exists"}],
    },
}


def _merged(patch: dict[str, Any]) -> tuple[dict[str, Any], PatchMarks]:
    body = copy.deepcopy(POD)
    marks = PatchMarks()
    origin = Origin("p.yaml", 1, 1, 1, 1)
    patching = Patching(body, "Pod", "p", (), lambda _path: origin, marks, Budget())
    assert merge_into(patching, patch) is None
    return body, marks


def test_pod_lists_merge_by_their_kubernetes_merge_keys():
    body, _ = _merged(
        {
            "spec": {
                "containers": [
                    {
                        "name": "main",
                        "env": [
                            {"name": "B", "value": "3"},
                            {"name": "C", "value": "4"},
                        ],
                        "volumeMounts": [{"mountPath": "/d", "readOnly": True}],
                        "ports": [{"containerPort": 80, "protocol": "TCP"}],
                        "args": ["--y"],
                    },
                    {"name": "new", "image": "n:1"},
                ],
                "volumes": [{"name": "e", "emptyDir": {}}],
                "tolerations": [{"key": "b", "operator": "Exists"}],
            }
        }
    )
    main, side, new = body["spec"]["containers"]
    assert main["env"] == [
        {"name": "A", "value": "1"},
        {"name": "B", "value": "3"},
        {"name": "C", "value": "4"},
    ]
    assert main["volumeMounts"] == [{"name": "d", "mountPath": "/d", "readOnly": True}]
    assert main["ports"] == [{"containerPort": 80, "name": "http", "protocol": "TCP"}]
    assert main["args"] == ["--y"], "a list without a merge key is replaced"
    assert (side, new) == (
        {"name": "side", "image": "s:1"},
        {"name": "new", "image": "n:1"},
    )
    assert [v["name"] for v in body["spec"]["volumes"]] == ["d", "e"]
    assert body["spec"]["tolerations"] == [{"key": "b", "operator": "Exists"}]


def test_directives_delete_and_replace_and_null_deletes_a_key():
    body, marks = _merged(
        {
            "spec": {
                "containers": [
                    {"name": "side", "$patch": "delete"},
                    {"name": "main", "env": [{"name": "A", "$patch": "delete"}]},
                ],
                "volumes": [{"name": "gone", "$patch": "delete"}],
                "tolerations": None,
            },
            "metadata": {"labels": {"$patch": "replace", "a": "b"}},
        }
    )
    (main,) = body["spec"]["containers"]
    assert main["env"] == [{"name": "B", "value": "2"}]
    assert "tolerations" not in body["spec"]
    assert body["metadata"]["labels"] == {"a": "b"}
    assert [path for path, _ in marks.removed] == [
        ("spec", "containers", 1),  # the sidecar, at the index it had
        ("spec", "containers", 0, "env", 0),
    ]


def test_an_overlay_patch_cannot_write_a_secret_into_the_output(
    tmp_path: Path, run_kgen: RunKgen
):
    overlay = """\
patches:
  - merge:
      metadata:
        annotations: {source: 'https://ci:hunter3-not-shown@git.example.com/x.git'}
      spec:
        pytorchReplicaSpecs:
          Master:
            template:
              spec:
                containers:
                  - name: pytorch
                    env: [{name: API_TOKEN, value: tok-not-shown-0}]
"""
    code, output = _validate(run_kgen, _project(tmp_path, overlay=overlay))
    assert code == 1
    assert "not-shown" not in output
    assert [line for line in output.splitlines() if line.startswith("overlays/")] == [
        "overlays/extra.yaml:4:31: error: the rendered PyTorchJob 'train': a patch"
        " writes a password in a URL at metadata.annotations.source, which would land"
        " in git and the cluster (secret-literal)",
        "overlays/extra.yaml:12:52: error: the rendered PyTorchJob 'train': a patch"
        " writes a literal value for API_TOKEN, which looks like a secret, at"
        " spec.pytorchReplicaSpecs.Master.template.spec.containers[0].env[0].value,"
        " which would land in git and the cluster (secret-env-literal)",
    ]


def test_the_jobs_patches_apply_first_then_each_overlays_in_the_environments_order(
    tmp_path: Path, run_kgen: RunKgen
):
    """Each later patch tests what the one before it wrote, so any other order fails."""
    root = _project(
        tmp_path,
        "  - ops: [{op: add, path: /metadata/annotations, value: {step: job}}]\n",
    )
    write_tree(
        root,
        {
            "kgen.yaml": KGEN_YAML.replace("[v1, extra]", "[v1, first, second]"),
            "overlays/first.yaml": """\
                patches:
                  - ops:
                      - {op: test, path: /metadata/annotations/step, value: job}
                      - {op: replace, path: /metadata/annotations/step, value: first}
            """,
            "overlays/second.yaml": """\
                patches:
                  - ops:
                      - {op: test, path: /metadata/annotations/step, value: first}
                  - merge: {metadata: {annotations: {step: second}}}
            """,
        },
    )
    assert run_kgen("build", cwd=root).code == 0
    job = (root / "manifests/dev/train.pytorchjob.yaml").read_text()
    assert "  annotations:\n    step: second\n" in job
    (root / "kgen.yaml").write_text(
        KGEN_YAML.replace("[v1, extra]", "[v1, second, first]")
    )
    code, output = _validate(run_kgen, root)
    # second now finds the job's value, and first the value second merged.
    assert (code, output.splitlines()[:2]) == (
        1,
        [
            "overlays/first.yaml:3:61: error: 'test' at /metadata/annotations/step"
            " failed: the rendered PyTorchJob 'train' has another value there"
            " (patch-test-failed)",
            "overlays/second.yaml:3:61: error: 'test' at /metadata/annotations/step"
            " failed: the rendered PyTorchJob 'train' has another value there"
            " (patch-test-failed)",
        ],
    )


def test_a_target_reads_the_labels_earlier_patches_wrote(
    tmp_path: Path, run_kgen: RunKgen
):
    patches = """\
  - merge: {metadata: {labels: {team: vision}}}
  - target: {labels: {team: vision}}
    merge: {metadata: {annotations: {owner: vision-leads}}}
"""
    root = _project(tmp_path, patches)
    assert _validate(run_kgen, root) == (
        0,
        "kgen: 1 job in 1 environment (1 render): valid\n",
    )


def test_a_created_claims_size_is_the_specs(tmp_path: Path, run_kgen: RunKgen):
    root = _project(tmp_path)
    job = root / "jobs/train.yaml"
    job.write_text(
        job.read_text()
        + "volumes:\n  - {name: data, claim: data, mountPath: /d,"
        + " create: {size: 1Gi, accessModes: [ReadWriteMany]}}\n"
        + "patches:\n  - target: {kind: PersistentVolumeClaim}\n"
        + "    merge: {spec: {resources: {requests: {storage: 1Ti}}}}\n"
    )
    assert _validate(run_kgen, root) == (
        1,
        "jobs/train.yaml:10:52: error: the rendered PersistentVolumeClaim 'data': a"
        " patch changes spec.resources.requests.storage, which kgen counts from the"
        " spec (patch-counted)\n",
    )


def test_the_merge_keys_are_the_core_definitions_own():
    """Each list of a pod (and a Service's ports) that Kubernetes merges by key, with
    its key: the `x-kubernetes-patch-merge-key` of the core definitions kgen checks
    against (generated from k8s.io/api core/v1 types.go `patchMergeKey` tags)."""
    found = {}
    definitions = core.definitions(core.DEFAULT_KUBERNETES_VERSION)
    for name in ("PodSpec", "Container"):
        for field, schema in definitions[f"io.k8s.api.core.v1.{name}"][
            "properties"
        ].items():
            if "x-kubernetes-patch-merge-key" in schema:
                found[field] = schema["x-kubernetes-patch-merge-key"]
    assert found == MERGE_KEYS
    service = definitions["io.k8s.api.core.v1.ServiceSpec"]["properties"]["ports"]
    assert service["x-kubernetes-patch-merge-key"] == "port"


def test_the_rules_over_patched_objects_and_the_schema_check_report_together(
    tmp_path: Path, run_kgen: RunKgen
):
    overlay = """\
patches:
  - merge:
      spec:
        pytorchReplicaSpecs:
          Master:
            template:
              spec:
                volumes: [{name: node, hostPath: {path: /var/run, kind: Socket}}]
"""
    code, output = _validate(run_kgen, _project(tmp_path, overlay=overlay))
    assert code == 1
    assert [line for line in output.splitlines() if line.startswith("overlays/")] == [
        "overlays/extra.yaml:8:57: error: the rendered PyTorchJob 'train', as a patch"
        " left it: volume 'node' is a hostPath: the pod reads and writes the node's"
        " files (host-path)",
        "overlays/extra.yaml:8:73: error: the rendered PyTorchJob 'train' is invalid"
        " at spec.pytorchReplicaSpecs.Master.template.spec.volumes[0].hostPath.kind:"
        " unknown field (the schema has no such property) (output-schema)",
    ]


def test_a_patch_cannot_float_an_image_past_the_rule(tmp_path: Path, run_kgen: RunKgen):
    patches = f"""\
  - ops:
      - {{op: replace, path: {MASTER}/containers/0/image, value: "registry.example.com/train:latest"}}
      - op: add
        path: {MASTER}/initContainers
        value: [{{name: fetch, image: busybox}}]
"""
    code, output = _validate(run_kgen, _project(tmp_path, patches))
    assert code == 0
    assert output.splitlines()[:2] == [
        "jobs/train.yaml:8:103: warning: the rendered PyTorchJob 'train': a patch gives"
        " spec.pytorchReplicaSpecs.Master.template.spec.containers[0].image an image"
        " tagged latest, so what runs changes over time (image-latest)",
        "jobs/train.yaml:11:38: warning: the rendered PyTorchJob 'train': a patch gives"
        " spec.pytorchReplicaSpecs.Master.template.spec.initContainers[0].image an"
        " image without a tag, so what runs changes over time (image-latest)",
    ]


def test_a_policy_forbids_host_access_a_patch_writes_whatever_lint_ignore_says(
    tmp_path: Path, run_kgen: RunKgen
):
    reasons = (
        "patch:\n  lint:\n    ignore:\n      host-path: node agent socket\n"
        "      host-namespaces: sees the node's processes\n"
        "      privileged-container: loads a kernel module\n"
    )
    root = _project(tmp_path, overlay=HOST_ACCESS + reasons)
    kgen_yaml = root / "kgen.yaml"
    kgen_yaml.write_text(KGEN_YAML + "policy: {podSecurity: baseline}\n")
    code, output = _validate(run_kgen, root)
    assert code == 1
    forbidden = [line for line in output.splitlines() if "(policy-forbidden)" in line]
    assert [line.split(": error: ")[0] for line in forbidden] == [
        "overlays/extra.yaml:8:26",
        "overlays/extra.yaml:10:51",
        "overlays/extra.yaml:13:51",
    ]
    assert all("as a patch left it" in line for line in forbidden)
    assert "forbidden by the project's policy (kgen.yaml:5:23)" in forbidden[0]


@pytest.mark.parametrize("container", [0, 1], ids=["trainer", "sidecar"])
def test_a_patch_on_one_roles_pod_leaves_the_other_roles_alone(
    tmp_path: Path, run_kgen: RunKgen, container: int
):
    # Roles share what they inherit (the sidecar is the job's; both pods are alike),
    # yet each role's pod is its own object in the output.
    worker = "/spec/pytorchReplicaSpecs/Worker/template/spec"
    patches = (
        f"  - ops: [{{op: replace, path: {worker}/containers/{container}/image,"
        ' value: "registry.example.com/patched:2.0"}]\n'
    )
    root = _project(tmp_path, patches)
    job = root / "jobs/train.yaml"
    job.write_text(
        job.read_text()
        + 'containers:\n  - {name: side, image: "registry.example.com/side:1.0"}\n'
    )
    assert run_kgen("build", cwd=root).code == 0
    body = yaml.safe_load((root / "manifests/dev/train.pytorchjob.yaml").read_text())
    specs = body["spec"]["pytorchReplicaSpecs"]
    images = {
        role: [c["image"] for c in specs[role]["template"]["spec"]["containers"]]
        for role in ("Master", "Worker")
    }
    expected = ["registry.example.com/train:1.0", "registry.example.com/side:1.0"]
    assert images["Master"] == expected
    expected[container] = "registry.example.com/patched:2.0"
    assert images["Worker"] == expected


@pytest.mark.parametrize(
    ("ops", "at", "out_path"),
    [
        (
            "{op: add, path: /metadata/annotations, value: {db-password: [hunter2secretvalue]}}",
            "7:72",
            "metadata.annotations.db-password",
        ),
        (
            f"{{op: add, path: {MASTER}/containers/0/env, value: [{{name: API_TOKEN,"
            " value: [hunter2secretvalue]}]}",
            "7:126",
            "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].env[0].value",
        ),
        (
            f"{{op: add, path: {MASTER}/containers/0/args, value: [--password,"
            " [hunter2secretvalue]]}",
            "7:114",
            "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].args[1]",
        ),
    ],
)
def test_a_wrongly_typed_value_under_a_secrets_name_is_never_quoted(
    tmp_path: Path, run_kgen: RunKgen, ops: str, at: str, out_path: str
):
    # A list where a string belongs: the schema's message quotes the whole list.
    code, output = _validate(run_kgen, _project(tmp_path, f"  - ops: [{ops}]\n"))
    assert code == 1
    assert "hunter2" not in output
    assert output.splitlines()[0] == (
        f"jobs/train.yaml:{at}: error: the rendered PyTorchJob 'train' is invalid"
        f" at {out_path}: *** is not of type 'string', 'null' (output-schema)"
    )


def test_the_jobs_own_patch_cannot_write_a_literal_under_a_secrets_name(
    tmp_path: Path, run_kgen: RunKgen
):
    patches = f"""\
  - ops:
      - {{op: add, path: /metadata/annotations, value: {{db-password: hunter2secretvalue}}}}
      - {{op: add, path: {MASTER}/containers/0/args, value: [--password, hunter2secretvalue]}}
"""
    root = _project(tmp_path, patches)
    code, output = _validate(run_kgen, root)
    assert code == 1
    assert "hunter2" not in output
    assert output.splitlines() == [
        "jobs/train.yaml:8:69: error: the rendered PyTorchJob 'train': a patch writes"
        " a literal value for db-password, which looks like a secret, at"
        " metadata.annotations.db-password, which would land in git and the cluster"
        " (secret-literal)",
        "jobs/train.yaml:9:111: error: the rendered PyTorchJob 'train': a patch writes"
        " a literal value for password, which looks like a secret, at"
        " spec.pytorchReplicaSpecs.Master.template.spec.containers[0].args[1], which"
        " would land in git and the cluster (secret-literal)",
    ]
    result = run_kgen("build", cwd=root)
    assert result.code == 1
    assert "hunter2" not in result.out + result.err
    assert not (root / "manifests").exists()


def test_a_field_of_the_api_named_like_a_secret_is_no_secrets_name(
    tmp_path: Path, run_kgen: RunKgen
):
    # topologyKey is the API's own field, and db-password a name allowed by the job.
    patches = f"""\
  - ops:
      - op: add
        path: {MASTER}/affinity
        value:
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              - topologyKey: kubernetes.io/hostname
                labelSelector: {{matchLabels: {{a: b}}}}
      - {{op: add, path: /metadata/annotations, value: {{db-password: not-a-secret}}}}
"""
    root = _project(tmp_path, patches)
    job = root / "jobs/train.yaml"
    job.write_text(
        job.read_text() + "lint:\n  allowLiterals: {db-password: a test database's}\n"
    )
    assert _validate(run_kgen, root) == (
        0,
        "kgen: 1 job in 1 environment (1 render): valid\n",
    )
