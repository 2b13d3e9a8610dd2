"""kgen import: build(import(manifests)) gives the same objects back."""

from __future__ import annotations

import copy
import re
import shutil
import time
from pathlib import Path
from typing import Any

import yaml

from kgen.importer.read import MAX_DOCUMENTS, read_manifests, split_documents
from tests.conftest import REPO, RunKgen, write_tree
from tests.unpatched import unpatched_repo

KINDS = ("PyTorchJob", "TFJob", "PersistentVolumeClaim")


def _objects(root: Path) -> dict[str, dict[str, Any]]:
    found = {}
    for path in sorted(root.rglob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc and doc.get("kind") in KINDS:
                found[f"{path.parent.name}/{doc['kind']}/{doc['metadata']['name']}"] = (
                    doc
                )
    return found


def test_round_trip_of_the_repo_examples(tmp_path: Path, run_kgen: RunKgen):
    repo = unpatched_repo(tmp_path / "repo", run_kgen)
    inputs = [
        str(p.relative_to(repo))
        for kind in ("pytorchjob", "tfjob", "trainjob", "persistentvolumeclaim")
        for p in sorted(repo.glob(f"manifests/*/*.{kind}.yaml"))
    ]
    result = run_kgen("import", *inputs, "--out", str(tmp_path / "imported"), cwd=repo)
    assert result.code == 0, result
    # The repo's claims carry Flux's prune opt-out because its kgen.yaml has `flux:`;
    # an imported project has no Flux settings (they name a Flux source), so each
    # claim keeps it as a patch.
    kept = [line for line in result.err.splitlines() if "(import-as-patch)" in line]
    assert {line.split(": ", 2)[2] for line in kept} == {
        'PersistentVolumeClaim mnist-data: metadata.annotations."kustomize.toolkit.fluxcd.io/prune" has no job spec field; kept as a patch (import-as-patch)'
    }
    assert result.err.endswith(
        "kgen: imported 8 jobs into "
        + str(tmp_path / "imported")
        + f"/ (56 files); {len(kept)} fields kept as patches; run `kgen build -C "
        + str(tmp_path / "imported")
        + "`\n"
    )
    built = run_kgen("build", "-C", str(tmp_path / "imported"))
    assert built.code == 0, built
    assert _objects(tmp_path / "imported" / "manifests") == _objects(repo / "manifests")
    spec = yaml.safe_load((tmp_path / "imported" / "jobs" / "tf-ps.yaml").read_text())
    assert spec["roles"]["ps"]["resources"]["limits"] == {
        "cpu": "2",
        "memory": "16Gi",
    }, "role overrides come back"


# The style of Kubeflow's own examples (tf-operator dist-mnist, pytorch-operator mnist):
# no ports, no restart policies where the operator defaults them, one file per cluster.
KUBEFLOW_STYLE = {
    "gpu/pytorch_job_mnist.yaml": """
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata:
          name: pytorch-dist-mnist
          namespace: kubeflow
        spec:
          pytorchReplicaSpecs:
            Master:
              replicas: 1
              restartPolicy: OnFailure
              template:
                spec:
                  containers:
                    - name: pytorch
                      image: gcr.io/kubeflow-ci/pytorch-dist-mnist-test:v1.0
                      args: ["--backend", "nccl"]
                      resources:
                        limits:
                          nvidia.com/gpu: 1
            Worker:
              replicas: 3
              restartPolicy: OnFailure
              template:
                spec:
                  containers:
                    - name: pytorch
                      image: gcr.io/kubeflow-ci/pytorch-dist-mnist-test:v1.0
                      args: ["--backend", "nccl"]
                      resources:
                        limits:
                          nvidia.com/gpu: 1
    """,
    "cpu/pytorch_job_mnist.yaml": """
        apiVersion: kubeflow.org/v1beta2
        kind: PyTorchJob
        metadata:
          name: pytorch-dist-mnist
        spec:
          cleanPodPolicy: None
          pytorchReplicaSpecs:
            Master:
              replicas: 1
              template:
                spec:
                  containers:
                    - name: pytorch
                      image: gcr.io/kubeflow-ci/pytorch-dist-mnist-test:v1.0
                      args: ["--backend", "gloo"]
            Worker:
              replicas: 3
              template:
                spec:
                  containers:
                    - name: pytorch
                      image: gcr.io/kubeflow-ci/pytorch-dist-mnist-test:v1.0
                      args: ["--backend", "gloo"]
    """,
    "ps/tf_job_mnist.yaml": """
        apiVersion: kubeflow.org/v1
        kind: TFJob
        metadata:
          name: dist-mnist-for-e2e-test
        spec:
          runPolicy:
            backoffLimit: 2
          tfReplicaSpecs:
            PS:
              replicas: 2
              restartPolicy: Never
              template:
                spec:
                  containers:
                    - name: tensorflow
                      image: kubeflow/tf-dist-mnist-test:1.0
            Worker:
              replicas: 4
              restartPolicy: Never
              template:
                spec:
                  containers:
                    - name: tensorflow
                      image: kubeflow/tf-dist-mnist-test:1.0
    """,
}
PORTS = {
    "PyTorchJob": ("pytorch", "pytorchjob-port", 23456),
    "TFJob": ("tensorflow", "tfjob-port", 2222),
}
RESTART = {"PyTorchJob": "OnFailure", "TFJob": "Never"}


def _normalised(job: dict[str, Any]) -> dict[str, Any]:
    """The job as the operator sees it: its defaults filled in (kubeflow-api.md §3)."""
    out = copy.deepcopy(job)
    out["metadata"].get("labels", {}).pop("app.kubernetes.io/managed-by", None)
    out["metadata"] = {k: v for k, v in out["metadata"].items() if v}
    spec, kind = out["spec"], out["kind"]
    v1 = "runPolicy" in spec or out["apiVersion"] == "kubeflow.org/v1"
    policy = spec.setdefault("runPolicy", {}) if v1 else spec
    policy.setdefault(
        "cleanPodPolicy", "None" if v1 or kind == "PyTorchJob" else "Running"
    )
    if v1:
        policy.setdefault("suspend", False)
        if kind == "PyTorchJob":
            spec.setdefault("nprocPerNode", "auto")
    container, port_name, port = PORTS[kind]
    for replica in spec[
        f"{'pytorch' if kind == 'PyTorchJob' else 'tf'}ReplicaSpecs"
    ].values():
        replica.setdefault("replicas", 1)
        replica.setdefault("restartPolicy", RESTART[kind])
        for c in replica["template"]["spec"]["containers"]:
            if c["name"] == container and not c.get("ports"):
                c["ports"] = [{"name": port_name, "containerPort": port}]
            for p in c.get("ports", []):
                p.setdefault("protocol", "TCP")
            limits = c.get("resources", {}).get("limits", {})
            c.get("resources", {})["limits"] = {k: str(v) for k, v in limits.items()}
            if not c.get("resources", {}).get("limits"):
                c.pop("resources", None)
    return out


def test_round_trip_of_kubeflow_style_manifests(tmp_path: Path, run_kgen: RunKgen):
    write_tree(tmp_path / "in", KUBEFLOW_STYLE)
    result = run_kgen(
        "import",
        "gpu/pytorch_job_mnist.yaml",
        "cpu/pytorch_job_mnist.yaml",
        "ps/tf_job_mnist.yaml",
        "--out",
        str(tmp_path / "p"),
        cwd=tmp_path / "in",
    )
    assert result.code == 0, result
    assert sorted(p.name for p in (tmp_path / "p" / "overlays").iterdir()) == [
        "cpu-pytorch-dist-mnist.yaml",
        "gpu-pytorch-dist-mnist.yaml",
        # A runPolicy without suspend is what 1.3-1.6 CRDs keep: rendered as it was.
        "training-operator-1.6.yaml",
        "v1.yaml",
        "v1beta2.yaml",
    ]
    built = run_kgen("validate", "-C", str(tmp_path / "p"))
    assert built.code == 0, built
    assert "nprocPerNode auto" not in built.err, (
        "the GPU job keeps auto, which is fine with GPUs"
    )
    assert "(ps-clean-pod-policy)" in built.err, (
        "the PS job keeps the operator's None, and kgen says what that means"
    )
    assert run_kgen("build", "-C", str(tmp_path / "p")).code == 0
    rebuilt = _objects(tmp_path / "p" / "manifests")
    originals = {
        f"{p.parent.name}/{d['kind']}/{d['metadata']['name']}": d
        for p in (tmp_path / "in").rglob("*.yaml")
        for d in [yaml.safe_load(p.read_text())]
    }
    assert sorted(rebuilt) == sorted(originals)
    for key, original in originals.items():
        assert _normalised(rebuilt[key]) == _normalised(original), key


def test_what_the_spec_cannot_say_is_kept_as_a_patch_at_its_line(
    tmp_path: Path, run_kgen: RunKgen
):
    write_tree(
        tmp_path,
        {
            "job.yaml": """
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata: {name: legacy-disk}
        spec:
          pytorchReplicaSpecs:
            Master:
              replicas: 1
              template:
                spec:
                  containers:
                    - name: pytorch
                      image: x:1
                      volumeMounts: [{name: disk, mountPath: /disk}]
                  volumes:
                    - name: disk
                      iscsi: {targetPortal: "10.0.0.1:3260", iqn: x, lun: 0}
    """
        },
    )
    result = run_kgen("import", "job.yaml", "--out", str(tmp_path / "p"), cwd=tmp_path)
    # An iscsi volume has no spec field: the volume and its mount are kept as patches.
    assert (result.code, result.err) == (
        0,
        "job.yaml:13:15: warning: PyTorchJob legacy-disk: spec.pytorchReplicaSpecs.Master.template.spec.containers[pytorch].volumeMounts has no job spec field; kept as a patch (import-as-patch)\n"
        "    hint: kgen build renders it through `patches:` (docs/patches.md); move it to a spec field if one comes\n"
        "job.yaml:14:11: warning: PyTorchJob legacy-disk: spec.pytorchReplicaSpecs.Master.template.spec.volumes has no job spec field; kept as a patch (import-as-patch)\n"
        "    hint: kgen build renders it through `patches:` (docs/patches.md); move it to a spec field if one comes\n"
        "kgen: 2 warnings in 1 file\n"
        f"kgen: imported 1 job into {tmp_path / 'p'}/ (3 files); 2 fields kept as patches; run `kgen build -C {tmp_path / 'p'}`\n",
    )
    assert run_kgen("build", "-C", str(tmp_path / "p")).code == 0
    [rebuilt] = _objects(tmp_path / "p" / "manifests").values()
    original = yaml.safe_load((tmp_path / "job.yaml").read_text())
    replicas = "pytorchReplicaSpecs"  # (kgen's nprocPerNode is its own default)
    assert (
        _normalised(rebuilt)["spec"][replicas]
        == _normalised(original)["spec"][replicas]
    )
    refused = run_kgen("import", "job.yaml", "--out", str(tmp_path / "p"), cwd=tmp_path)
    assert refused.code == 2 and "is not empty" in refused.err


# Upstream style with what teams add (issue 18): a log shipper reading the trainer's
# logs from a shared emptyDir, an init container, probes and a metrics port.
SIDECAR_STYLE = """
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bert-sidecar
  namespace: kubeflow
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          initContainers:
            - name: wait-for-data
              image: busybox:1.36
              command: [sh, -c, "until test -f /data/ready; do sleep 5; done"]
              volumeMounts: [{name: logs, mountPath: /data}]
          containers:
            - name: pytorch
              image: registry.example.com/bert:2.0
              ports:
                - {name: pytorchjob-port, containerPort: 23456}
                - {name: metrics, containerPort: 9090}
              readinessProbe:
                httpGet: {path: /ready, port: metrics}
              volumeMounts: [{name: logs, mountPath: /var/log/train}]
            - name: log-shipper
              image: fluent/fluent-bit:3.0
              volumeMounts: [{name: logs, mountPath: /logs, readOnly: true}]
          volumes:
            - name: logs
              emptyDir: {sizeLimit: 5Gi}
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          initContainers:
            - name: wait-for-data
              image: busybox:1.36
              command: [sh, -c, "until test -f /data/ready; do sleep 5; done"]
              volumeMounts: [{name: logs, mountPath: /data}]
          containers:
            - name: pytorch
              image: registry.example.com/bert:2.0
              ports:
                - {name: pytorchjob-port, containerPort: 23456}
                - {name: metrics, containerPort: 9090}
              readinessProbe:
                httpGet: {path: /ready, port: metrics}
              volumeMounts: [{name: logs, mountPath: /var/log/train}]
            - name: log-shipper
              image: fluent/fluent-bit:3.0
              volumeMounts: [{name: logs, mountPath: /logs, readOnly: true}]
          volumes:
            - name: logs
              emptyDir: {sizeLimit: 5Gi}
"""


def test_a_sidecar_and_an_emptydir_import_validate_and_rebuild_the_same(
    tmp_path: Path, run_kgen: RunKgen
):
    write_tree(tmp_path / "in", {"bert.yaml": SIDECAR_STYLE})
    result = run_kgen(
        "import", "bert.yaml", "--out", str(tmp_path / "p"), cwd=tmp_path / "in"
    )
    assert result.code == 0, result
    spec = yaml.safe_load((tmp_path / "p" / "jobs" / "bert-sidecar.yaml").read_text())
    assert [c["name"] for c in spec["containers"]] == ["log-shipper"]
    assert [c["name"] for c in spec["initContainers"]] == ["wait-for-data"]
    assert spec["volumes"] == [
        {
            "name": "logs",
            "mountPath": "/var/log/train",
            "emptyDir": {"sizeLimit": "5Gi"},
        }
    ]
    assert spec["ports"] == [{"name": "metrics", "containerPort": 9090}]
    assert run_kgen("validate", "-C", str(tmp_path / "p")).code == 0
    assert run_kgen("build", "-C", str(tmp_path / "p")).code == 0
    rebuilt = _objects(tmp_path / "p" / "manifests")
    original = yaml.safe_load(SIDECAR_STYLE)
    [key] = [k for k in rebuilt if k.endswith("PyTorchJob/bert-sidecar")]
    assert _normalised(rebuilt[key]) == _normalised(original)


def test_malformed_inputs_are_clean_errors_not_crashes(
    tmp_path: Path, run_kgen: RunKgen
):
    write_tree(
        tmp_path,
        {
            "broken.yaml": "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nspec: [\n",
            "nameless.yaml": "apiVersion: kubeflow.org/v1\nkind: TFJob\nspec: {}\n",
            "badspec.yaml": "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: x}\nspec: [1]\n",
        },
    )
    result = run_kgen(
        "import",
        "broken.yaml",
        "nameless.yaml",
        "badspec.yaml",
        "--out",
        str(tmp_path / "p"),
        cwd=tmp_path,
    )
    assert result.code == 1
    assert result.err.splitlines()[:2] == [
        "badspec.yaml:4:7: error: cannot import this TFJob: spec must be a mapping (a job"
        " spec), not a list (import-unsupported)",
        "broken.yaml:4:1: error: did not find expected node content (yaml-syntax)",
    ]
    assert (
        "nameless.yaml:1:1: error: cannot import a TFJob without metadata.name (import-unsupported)"
        in result.err
    )
    assert result.err.endswith(
        "kgen: no job kgen imports (PyTorchJob, TFJob, MPIJob, XGBoostJob, JAXJob, PaddleJob,"
        " TrainJob)"
        " in the given files\n"
    )


def test_documents_split_at_markers_with_their_directives():
    text = (
        "a: 1\n"  # 1
        "---x: not a marker\n"  # 2
        "--- {b: 2}\n"  # 3: content on the marker line stays with its document
        "...\n"  # 4
        "%YAML 1.1\n"  # 5: a directive belongs to the document it precedes
        "# about c\n"  # 6
        "---\n"  # 7
        "c: 3\n"  # 8
        "---\r\n"  # 9
        "\n"  # 10
    )
    assert split_documents(text) == [
        (0, "a: 1\n---x: not a marker"),
        (2, "--- {b: 2}\n..."),
        (4, "%YAML 1.1\n# about c\n---\nc: 3"),
        (8, "---\r\n\n"),  # empty: loads as nothing
    ]


def test_each_document_loads_alone_at_its_lines_of_the_file(
    tmp_path: Path, run_kgen: RunKgen
):
    job = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: NAME}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: REPLICAS
      template:
        spec:
          containers:
            - {name: pytorch, image: "x:1"}
          volumes:
            - {name: repo, gitRepo: {repository: "https://example.com/r.git"}}
"""
    first = job.replace("NAME", "broken").replace("REPLICAS", "-_")
    second = job.replace("NAME", "fine").replace("REPLICAS", "1")
    (tmp_path / "in.yaml").write_text(first + "---\n" + second)
    result = run_kgen("import", "in.yaml", "--out", "p", cwd=tmp_path)
    assert (result.code, result.err) == (
        1,
        "in.yaml:7:17: error: '-_' looks like a number to YAML but is not one (yaml-syntax)\n"
        "    hint: quote it if it is text\n"
        "in.yaml:26:11: warning: PyTorchJob fine: spec.pytorchReplicaSpecs.Master.template.spec.volumes has no job spec field; kept as a patch (import-as-patch)\n"
        "    hint: kgen build renders it through `patches:` (docs/patches.md); move it to a spec field if one comes\n"
        "kgen: 1 error and 1 warning in 1 file\n"
        "kgen: nothing written to p/: an import with errors writes no project\n",
    )
    assert not (tmp_path / "p").exists()


def test_a_file_holds_at_most_so_many_documents(tmp_path: Path):
    many = "".join(f"---\nkind: ConfigMap\nn: {i}\n" for i in range(MAX_DOCUMENTS))
    (tmp_path / "ok.yaml").write_text(many)
    (tmp_path / "over.yaml").write_text(many + "---\nkind: ConfigMap\n")
    started = time.perf_counter()
    documents, problems = read_manifests([Path("ok.yaml")], cwd=tmp_path)
    assert (len(documents), problems) == (MAX_DOCUMENTS, [])
    assert documents[-1].origin(("n",)).line == 3 * MAX_DOCUMENTS
    assert time.perf_counter() - started < 1.0
    documents, problems = read_manifests([Path("over.yaml")], cwd=tmp_path)
    assert documents == []
    assert [(p.line, p.code, p.message) for p in problems] == [
        (
            3 * MAX_DOCUMENTS + 1,
            "yaml-too-large",
            f"more than {MAX_DOCUMENTS} YAML documents in one file",
        )
    ]


PLAIN_UPSTREAM = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: pytorch-simple
  namespace: kubeflow
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727
              command: ["python3", "/opt/pytorch-mnist/mnist.py", "--epochs=1"]
    Worker:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727
              command: ["python3", "/opt/pytorch-mnist/mnist.py", "--epochs=1"]
"""


def test_a_plain_upstream_pytorchjob_imports_into_a_project_that_validates(
    tmp_path: Path, run_kgen: RunKgen
):
    # kubeflow/training-operator examples/pytorch/simple.yaml: no GPUs, no nprocPerNode.
    # The operator's `auto` would start one process per CPU core, which kgen refuses
    # (nproc-auto-on-cpu); the import leaves it out, and kgen renders 1.
    write_tree(tmp_path / "in", {"simple.yaml": PLAIN_UPSTREAM})
    result = run_kgen(
        "import", "simple.yaml", "--out", str(tmp_path / "p"), cwd=tmp_path / "in"
    )
    assert result.code == 0, result
    spec = yaml.safe_load((tmp_path / "p" / "jobs" / "pytorch-simple.yaml").read_text())
    assert "nprocPerNode" not in spec
    validated = run_kgen("validate", "-C", str(tmp_path / "p"))
    assert (validated.code, validated.err.splitlines()[-1]) == (
        0,
        "kgen: 1 job in 1 environment (1 render): valid",
    ), validated


def test_import_into_an_existing_project_says_how_to_move_in(
    tmp_path: Path, run_kgen: RunKgen
):
    # A team with a kgen project already points --out at it: import writes a whole
    # project (kgen.yaml, overlays), so it refuses, and says what to do instead.
    write_tree(
        tmp_path,
        {"simple.yaml": PLAIN_UPSTREAM, "repo/kgen.yaml": "environments: {}\n"},
    )
    refused = run_kgen("import", "simple.yaml", "--out", "repo", cwd=tmp_path)
    assert (refused.code, refused.err) == (
        2,
        "kgen: error: repo is not empty; import writes a new project folder: import"
        " into a new one (--out imported) and move the jobs/ it writes into your"
        " project\n",
    )


def test_objects_beside_the_jobs_go_to_resources_and_nothing_vanishes(
    tmp_path: Path, run_kgen: RunKgen
):
    """A ConfigMap and a kustomization.yaml in the input used to vanish while the
    summary said 'imported 1 jobs' (issue 18). The summary counts the jobs written:
    one job in two folders is one spec."""
    for env, cpu in (("dev", "8"), ("prod", "64")):
        job = IMPORTED_JOB.replace("NS", f"ml-{env}")
        (tmp_path / env).mkdir()
        (tmp_path / env / "job.yaml").write_text(
            job
            + "---\napiVersion: v1\nkind: ConfigMap\n"
            + f"metadata: {{name: settings, namespace: ml-{env}}}\ndata: {{mode: fast}}\n"
            + "---\napiVersion: v1\nkind: ResourceQuota\n"
            + f"metadata: {{name: quota, namespace: ml-{env}}}\n"
            + f'spec: {{hard: {{requests.cpu: "{cpu}"}}}}\n'
        )
    (tmp_path / "dev" / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [job.yaml]\n"
    )
    args = ("dev/job.yaml", "prod/job.yaml", "dev/kustomization.yaml")
    result = run_kgen("import", *args, "--out", "p", cwd=tmp_path)
    assert (result.code, result.err) == (
        1,
        "dev/kustomization.yaml:2:7: error: cannot import this Kustomization: kgen writes"
        " each environment's kustomization; pass the files it lists to kgen import"
        " (job.yaml) (import-unsupported)\n"
        "kgen: 1 error in 1 file\n"
        "kgen: nothing written to p/: an import with errors writes no project\n",
    )
    assert not (tmp_path / "p").exists()
    result = run_kgen("import", *args[:2], "--out", "p", cwd=tmp_path)
    assert (result.code, result.err) == (
        0,
        "kgen: imported 1 job and 3 objects beside them (resources/) into p/ (6 files);"
        " run `kgen build -C p`\n",
    )
    resources = tmp_path / "p" / "resources"
    assert sorted(str(p.relative_to(resources)) for p in resources.rglob("*.yaml")) == [
        "dev/quota.resourcequota.yaml",
        "prod/quota.resourcequota.yaml",
        "settings.configmap.yaml",
    ], "shared when identical everywhere, per environment otherwise"
    assert yaml.safe_load((resources / "settings.configmap.yaml").read_text()) == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings"},
        "data": {"mode": "fast"},
    }, "the environment's namespace is kgen's to give"
    assert run_kgen("build", "-C", str(tmp_path / "p")).code == 0
    built = tmp_path / "p" / "manifests" / "prod"
    quota = yaml.safe_load((built / "quota.resourcequota.yaml").read_text())
    assert quota["metadata"] == {"name": "quota", "namespace": "ml-prod"}
    assert "- settings.configmap.yaml" in (built / "kustomization.yaml").read_text()


# Beside TrainJobs, the runtimes they name (kubeflow/trainer@v2.3.0
# manifests/base/runtimes: ClusterTrainingRuntime; TrainingRuntime, namespaced).
RUNTIMES = """\
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: team-torch}
spec: {mlPolicy: {numNodes: 1, torch: {numProcPerNode: 1}}}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: team-torch-ns, namespace: NS}
spec: {mlPolicy: {numNodes: 1, torch: {numProcPerNode: 1}}}
"""


def test_objects_of_a_crds_kind_are_named_at_import_not_a_failed_build(
    tmp_path: Path, run_kgen: RunKgen
):
    """In resources/ they failed the imported project's first build
    (resource-unknown-kind): the build checks such a kind only against its CRD."""
    (tmp_path / "job.yaml").write_text(
        IMPORTED_JOB.replace("NS", "ml") + RUNTIMES.replace("NS", "ml")
    )
    result = run_kgen("import", "job.yaml", "--out", "p", cwd=tmp_path)
    hint = (
        "    hint: import it with its CustomResourceDefinition: both go to resources/,"
        " the CRD listed under kgen.yaml crds:\n"
    )
    line = len(IMPORTED_JOB.splitlines()) + 3
    assert (result.code, result.err) == (
        0,
        f"job.yaml:{line}:7: warning: ClusterTrainingRuntime team-torch: kgen build"
        " checks a ClusterTrainingRuntime of trainer.kubeflow.org/v1alpha1 only against"
        " its CRD, which the imported project does not list; not imported"
        " (import-unchecked)\n"
        + hint
        + f"job.yaml:{line + 5}:7: warning: TrainingRuntime team-torch-ns: kgen build"
        " checks a TrainingRuntime of trainer.kubeflow.org/v1alpha1 only against its"
        " CRD, which the imported project does not list; not imported"
        " (import-unchecked)\n" + hint + "kgen: 2 warnings in 1 file\n"
        "kgen: imported 1 job into p/ (3 files); run `kgen build -C p`\n",
    )
    assert not (tmp_path / "p" / "resources").exists()
    assert run_kgen("build", "-C", str(tmp_path / "p")).code == 0


IMPORTED_JOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: train, namespace: NS}
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - {name: pytorch, image: 'registry.example.com/train:1.0'}
"""


def test_the_gitops_page_import_command_takes_a_built_tree(
    tmp_path: Path, run_kgen: RunKgen
):
    """The command docs/gitops.md gives, on the folders `kgen build` writes: every
    object, and none of the kustomization.yaml files import refuses."""
    page = (REPO / "docs" / "gitops.md").read_text(encoding="utf-8")
    (command,) = re.findall(r"`(kgen import [^`]*)`", page)
    _, _, pattern, *rest = command.split()
    assert rest == ["--out", "imported"]
    shutil.copytree(REPO / "manifests", tmp_path / "manifests")
    inputs = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.glob(pattern))
    assert not [p for p in inputs if p.endswith("kustomization.yaml")]
    result = run_kgen("import", *inputs, *rest, cwd=tmp_path)
    assert result.code == 0, result
    assert " error: " not in result.err
