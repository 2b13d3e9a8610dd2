"""kgen import checks the shape of what it reads before it reads it: a field of the
wrong type is an error at its own line, naming the shape the API gives it, never a
Python exception at the document's first line; and a run with an error writes
nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgen.importer.jobs import import_files
from tests.conftest import RunKgen

KINDS = "PyTorchJob, TFJob, MPIJob, XGBoostJob, JAXJob, PaddleJob, TrainJob"
NO_JOB = f"kgen: no job kgen imports ({KINDS}) in the given files\n"
NOTHING = "kgen: nothing written to out/: an import with errors writes no project\n"
JOB = (
    "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: a}\nspec:\n"
    "  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n      template:\n"
    "        spec:\n          containers:\n            - name: pytorch\n"
    "              image: x:1\n"
)
MASTER = "spec.pytorchReplicaSpecs.Master"
TRAINER = f"{MASTER}.template.spec.containers[pytorch]"

# name: (input file, its error line, the line that ends the output)
CASES = {
    "replica-spec-null": (
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: a}\n"
        "spec: {pytorchReplicaSpecs: {Master: null}}\n",
        f"4:38: error: cannot import this PyTorchJob: {MASTER} must be a mapping"
        " (a replica spec), not null",
        NO_JOB,
    ),
    "containers-a-string": (
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: b}\nspec:\n"
        "  pytorchReplicaSpecs:\n"
        "    Master: {replicas: 1, template: {spec: {containers: x}}}\n",
        f"6:57: error: cannot import this PyTorchJob: {MASTER}.template.spec.containers"
        " must be a list of containers, not a string",
        NO_JOB,
    ),
    "spec-a-list": (
        "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: x}\nspec: [1]\n",
        "4:7: error: cannot import this TFJob: spec must be a mapping (a job spec),"
        " not a list",
        NO_JOB,
    ),
    "template-a-list": (
        JOB.replace("      template:\n", "      template: [1]\n").split(
            "        spec:"
        )[0],
        f"8:17: error: cannot import this PyTorchJob: {MASTER}.template must be a"
        " mapping (a pod template), not a list",
        NO_JOB,
    ),
    "gpu-limit-not-a-number": (
        JOB + "              resources: {limits: {nvidia.com/gpu: many}}\n",
        f'13:52: error: cannot import this PyTorchJob: {TRAINER}.resources.limits."nvidia.com/gpu"'
        " must be a whole number (a GPU count), not a string",
        NO_JOB,
    ),
    "env-source-of-nothing": (
        JOB + "              envFrom: [{prefix: P}]\n",
        f"13:25: error: cannot import this PyTorchJob: {TRAINER}.envFrom[0] must have"
        " configMapRef or secretRef (an environment source)",
        NO_JOB,
    ),
    "claim-name-a-list": (
        JOB
        + "          volumes: [{name: d, persistentVolumeClaim: {claimName: [d]}}]\n",
        f"13:66: error: cannot import this PyTorchJob: {MASTER}.template.spec.volumes[d]"
        ".persistentVolumeClaim.claimName must be a string, not a list",
        NO_JOB,
    ),
    "claim-resources-a-list": (
        JOB
        + "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\n"
        "spec: {resources: [1Gi]}\n",
        "17:19: error: cannot import this PersistentVolumeClaim: spec.resources must"
        " be a mapping (volume resource requirements), not a list",
        NOTHING,
    ),
    "mpijob-v2beta1-env-without-a-name": (
        "apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: m}\nspec:\n"
        "  mpiReplicaSpecs:\n    Launcher:\n"
        '      template: {spec: {containers: [{name: l, image: "x:1", env: [{value: "1"}]}]}}\n',
        "7:68: error: cannot import this MPIJob: spec.mpiReplicaSpecs.Launcher.template"
        ".spec.containers[l].env[0] must have name (an environment variable)",
        NO_JOB,
    ),
    "trainjob-env-a-string": (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\n"
        "spec:\n  runtimeRef: {name: torch-distributed}\n"
        '  trainer: {image: "x:1", env: A=1}\n',
        "6:32: error: cannot import this TrainJob: spec.trainer.env must be a list of"
        " environment variables, not a string",
        NO_JOB,
    ),
    # A mapping, list or boolean where the API has text or a quantity was imported as
    # Python's text of it: an env value of '{'a': 'b'}' (valid, and not what was
    # written), a request of '[1]', a claim of size "{'x': 1}".
    "env-value-a-mapping": (
        JOB + "              env: [{name: X, value: {a: b}}]\n",
        f"13:38: error: cannot import this PyTorchJob: {TRAINER}.env[X].value must be"
        " a string, not a mapping",
        NO_JOB,
    ),
    "env-value-a-boolean": (
        JOB + "              env: [{name: X, value: true}]\n",
        f"13:38: error: cannot import this PyTorchJob: {TRAINER}.env[X].value must be"
        " a string, not a boolean",
        NO_JOB,
    ),
    "request-a-list": (
        JOB + "              resources: {requests: {memory: [1Gi]}}\n",
        f"13:46: error: cannot import this PyTorchJob: {TRAINER}.resources.requests"
        ".memory must be a quantity (text or a number), not a list",
        NO_JOB,
    ),
    "limit-a-boolean": (
        JOB + "              resources: {limits: {cpu: true}}\n",
        f"13:41: error: cannot import this PyTorchJob: {TRAINER}.resources.limits.cpu"
        " must be a quantity (text or a number), not a boolean",
        NO_JOB,
    ),
    "claim-size-a-mapping": (
        JOB
        + "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\n"
        "spec: {resources: {requests: {storage: {x: 1}}}}\n",
        "17:40: error: cannot import this PersistentVolumeClaim: spec.resources.requests"
        ".storage must be a quantity (text or a number), not a mapping",
        NOTHING,
    ),
    "kind-a-list": (
        JOB.replace("kind: PyTorchJob", "kind: [PyTorchJob]"),
        "2:7: error: cannot import this object: kind must be a string",
        NO_JOB,
    ),
    "a-good-job-beside-a-bad-one": (
        JOB
        + "---\n"
        + JOB.replace("{name: a}", "{name: b}").replace(
            "            - name: pytorch\n              image: x:1\n",
            "            - null\n",
        ),
        "24:15: error: cannot import this PyTorchJob: spec.pytorchReplicaSpecs.Master"
        ".template.spec.containers[0] must be a mapping (a container), not null",
        NOTHING,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_wrong_shape_is_an_error_at_its_field(
    name: str, tmp_path: Path, run_kgen: RunKgen
) -> None:
    text, error, last = CASES[name]
    (tmp_path / "in").mkdir()
    (tmp_path / "in/job.yaml").write_text(text)
    result = run_kgen("import", "in/job.yaml", "--out", "out", cwd=tmp_path)
    assert (result.code, result.out, result.err) == (
        1,
        "",
        f"in/job.yaml:{error} (import-unsupported)\nkgen: 1 error in 1 file\n{last}",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"], "nothing written"


def test_what_the_shape_check_misses_is_reported_without_python_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The last resort: a reader that still fails on the input says so in the input's
    # words, at the document, and never names the exception.
    import kgen.importer.jobs as jobs

    def failing(*args: object, **kwargs: object) -> None:
        raise AttributeError("'NoneType' object has no attribute 'get'")

    monkeypatch.setattr(jobs, "pod_settings", failing)
    (tmp_path / "job.yaml").write_text(JOB)
    result = import_files([Path("job.yaml")], cwd=tmp_path)
    assert [(p.line, p.column, p.message) for p in result.problems] == [
        (
            1,
            1,
            "cannot import this PyTorchJob: one of its fields does not have the shape"
            " the API gives it",
        )
    ]
