"""Hostile inputs against the Kubeflow Trainer v2 targets (issue 19): what a TrainJob
cannot hold is an error at the key that says it, naming the target; never a drop."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

from kgen.cli import main
from tests.hostile.case import VALID_JOB, Case, Content

_PROJECT = """\
environments:
  dev:
    overlays: [trainer]
    namespace: dev
lint:
  ignore:
    resources-missing: each case shows one problem; its specs are minimal
"""
_TORCHRUN = "command: [torchrun, train.py]\n"


def _on(target: str, job: str) -> dict[str, Content]:
    """`job` in a project whose one environment is on `target`."""
    return {
        "kgen.yaml": _PROJECT,
        "overlays/trainer.yaml": f"target: {target}\n",
        "jobs/train.yaml": job,
    }


def _v23(*lines: str) -> dict[str, Content]:
    return _on("trainer-v2.3", VALID_JOB + _TORCHRUN + "".join(lines))


_TF = """\
framework: tensorflow
image: registry.example.com/train:1.0
roles: {worker: {replicas: 2}, ps: {replicas: 1}}
"""
_EVERY_POD_FIELD = (
    "containers:\n  - {name: side, image: 'registry.example.com/side:1.0'}\n",
    "initContainers:\n  - {name: prep, image: 'registry.example.com/prep:1.0'}\n",
    "ports:\n  - {name: metrics, containerPort: 9090}\n",
    "livenessProbe: {tcpSocket: {port: 9090}}\n",
    "lifecycle: {preStop: {exec: {command: [sleep, '5']}}}\n",
    "runtimeClassName: nvidia\n",
    "dnsPolicy: ClusterFirst\n",
    "hostAliases:\n  - {ip: 10.0.0.1, hostnames: [store]}\n",
    "topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n",
    "hostPID: true\n",
    "imagePullPolicy: Always\n",
    "envFrom:\n  - {configMap: settings}\n",
)

_IMPORT = ("import", "manifest.yaml", "--out", "imported")


def _trainjob(spec: str) -> dict[str, Content]:
    """A TrainJob manifest to import, with `spec` (indented) as its spec."""
    head = (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
        "metadata: {name: tj, namespace: ml}\nspec:\n"
    )
    return {"manifest.yaml": head + spec}


_DS = "trainJob: {runtimeRef: {name: deepspeed-distributed}}\n"
_MPI_JOB = VALID_JOB + "command: [mpirun, python, train.py]\nresources: {gpu: 2}\n"
_COMMITTED = "manifests/dev/train.trainjob.yaml"


def _committed_then(change: Callable[[Path], object]) -> Callable[[Path], None]:
    """Build (the committed render), change the job's image (an update that breaks
    the trainer's immutability), then `change` the committed render."""

    def prepare(root: Path) -> None:
        with redirect_stdout(StringIO()), redirect_stderr(StringIO()):
            assert main(["build", "-C", str(root)]) == 0
        spec = root / "jobs/train.yaml"
        spec.write_text(spec.read_text().replace("train:1.0", "train:2.0"))
        change(root / _COMMITTED)

    return prepare


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _link_out(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


CASES: dict[str, Case] = {
    "trainer-tensorflow-job": Case(
        _on("trainer-v2.3", _TF),
        about="no TensorFlow policy in Trainer v2: TFJob does not exist there",
    ),
    "trainer-elastic-policy": Case(
        _v23("elasticPolicy: {minReplicas: 1, maxReplicas: 4}\n"),
        about="a TrainJob has no elastic training: never dropped",
    ),
    "trainer-nproc-per-node": Case(
        _v23("nprocPerNode: '2'\n"),
        about="the PyTorchJob key; a TrainJob takes trainJob.numProcPerNode",
    ),
    "trainer-per-role-image-and-resources": Case(
        _on(
            "trainer-v2.3",
            "framework: pytorch\nimage: registry.example.com/train:1.0\n"
            + _TORCHRUN
            + "roles:\n  master: {replicas: 1, image: 'registry.example.com/m:1.0'}\n"
            + "  worker: {replicas: 2, resources: {gpu: 2}, restartPolicy: Never}\n",
        ),
        about="one pod template for every node: per-role settings cannot map",
    ),
    "trainer-run-policies": Case(
        _v23(
            "runPolicy:\n  cleanPodPolicy: All\n  backoffLimit: 2\n"
            "  ttlSecondsAfterFinished: 60\n  ttlAcknowledged: true\n"
            "  schedulingPolicy: {minAvailable: 3}\n"
        ),
        about="JobSet and the runtime own restarts, clean-up and gang scheduling",
    ),
    "trainer-every-pod-field": Case(
        _v23(*_EVERY_POD_FIELD),
        about="the whole-pod fields the override mechanism cannot hold, each located",
    ),
    "trainer-code-sync": Case(
        _v23("codeSync: {repo: 'https://github.com/example/code.git'}\n"),
        about="git-sync is an init container, which a TrainJob cannot add",
    ),
    "trainer-v21-security-context-and-deadline": Case(
        _on(
            "trainer-v2.1",
            VALID_JOB
            + _TORCHRUN
            + "securityContext: {runAsNonRoot: true}\n"
            + "podSecurityContext: {fsGroup: 1000}\n"
            + "terminationGracePeriodSeconds: 30\n"
            + "runPolicy: {activeDeadlineSeconds: 600}\n",
        ),
        about="v2.1's podTemplateOverrides lacks them; v2.1 has no activeDeadlineSeconds",
    ),
    "trainer-v22-termination-grace": Case(
        _on(
            "trainer-v2.2",
            VALID_JOB + _TORCHRUN + "terminationGracePeriodSeconds: 30\n",
        ),
        about="the pod patch has terminationGracePeriodSeconds from 2.3 only",
    ),
    "trainer-num-proc-auto-on-v23": Case(
        _v23("trainJob: {numProcPerNode: auto}\n"),
        about="from 2.2 numProcPerNode is an integer",
    ),
    "trainer-section-on-training-operator": Case(
        _on("v1", VALID_JOB + "trainJob: {numProcPerNode: 2}\n"),
        about="trainJob: on a target that renders a PyTorchJob names the target",
    ),
    "trainer-storage-uri-without-scheme": Case(
        _v23(
            "trainJob:\n  initializer:\n    model: {storageUri: meta-llama/Llama-3.2-1B}\n"
        ),
        about="the CRD's CEL rule on storageUri: scheme://...",
    ),
    "trainer-storage-uri-with-password": Case(
        _v23(
            "trainJob:\n  initializer:\n"
            "    dataset: {storageUri: 's3://admin:hunter2hunter2@minio.local/data'}\n"
        ),
        about="a credential in a URI is never echoed",
    ),
    "trainer-initializer-on-torch-distributed": Case(
        _v23("trainJob:\n  initializer:\n    model: {storageUri: 'hf://org/model'}\n"),
        expected_exit=0,
        about="Kubeflow's own runtimes have no initializer jobs: nothing downloads",
    ),
    "trainer-runtime-kind-unknown": Case(
        _v23("trainJob: {runtimeRef: {name: torch, kind: JobSet}}\n"),
        about="runtimeRef names a TrainingRuntime or a ClusterTrainingRuntime",
    ),
    "trainer-reserved-env": Case(
        _v23("env:\n  - {name: PET_MASTER_ADDR, value: localhost}\n"),
        about="the torch runtime owns PET_*; the controller refuses the TrainJob",
    ),
    "trainer-without-torchrun": Case(
        _on("trainer-v2.3", VALID_JOB + "command: [python, train.py]\n"),
        expected_exit=0,
        about="a warning: no MASTER_ADDR/RANK/WORLD_SIZE without torchrun",
    ),
    "trainer-explained": Case(
        _v23("resources: {gpu: 2}\n"),
        args=("explain", "train", "--env", "dev"),
        expected_exit=0,
        about="the PET_* env of every node, and the migration side-by-side",
    ),
    "trainer-rendered": Case(
        _on(
            "trainer-v2.1",
            VALID_JOB
            + _TORCHRUN
            + "resources: {gpu: 1}\ntrainJob: {numProcPerNode: auto}\n",
        ),
        args=("render", "train", "--env", "dev"),
        expected_exit=0,
        about="v2.1 keeps auto as a name (GPU nodes: one process per GPU)",
    ),
    "trainer-auto-on-cpu": Case(
        _on(
            "trainer-v2.1", VALID_JOB + _TORCHRUN + "trainJob: {numProcPerNode: auto}\n"
        ),
        about="torchrun's auto on a CPU node starts a process per core",
    ),
    "trainer-name-too-long": Case(
        {
            **_on("trainer-v2.3", VALID_JOB + _TORCHRUN),
            "jobs/train.yaml": None,
            "jobs/a-job-name-too-long-for-the-jobset-pod-hostnames-of-trainer.yaml": (
                VALID_JOB + _TORCHRUN
            ),
        },
        about="JobSet's pod hostnames {job}-node-0-{index}, not the operator's pod names",
    ),
    "trainer-import-trainer-as-a-list": Case(
        _trainjob("  runtimeRef: {name: torch-distributed}\n  trainer: [image]\n"),
        args=_IMPORT,
        about="not the API's shape: an error at the field, naming the shape expected",
    ),
    "trainer-import-nodes-as-text": Case(
        _trainjob(
            "  runtimeRef: {name: torch-distributed}\n"
            "  trainer: {image: 'x:1', numNodes: 'many'}\n"
        ),
        args=_IMPORT,
        about="numNodes a string: refused, not compared with an integer",
    ),
    "trainer-import-patch-without-jobs": Case(
        _trainjob(
            "  runtimeRef: {name: torch-distributed}\n"
            "  trainer: {image: 'x:1', numNodes: 2}\n"
            "  runtimePatches:\n  - manager: kgen.io/kgen\n"
            "    trainingRuntimeSpec: {template: {spec: {replicatedJobs: []}}}\n"
        ),
        args=_IMPORT,
        about="a runtime patch of no job: nothing to read, an error at the patch",
    ),
    "trainer-import-without-a-trainer": Case(
        _trainjob("  runtimeRef: {name: torch-distributed}\n"),
        args=_IMPORT,
        expected_exit=0,
        about="no image: imported as a PyTorchJob without one is, and the build says so",
    ),
    "trainer-mpi-explained": Case(
        _on("trainer-v2.3", _MPI_JOB + _DS),
        args=("explain", "train", "--env", "dev"),
        expected_exit=0,
        about="deepspeed-distributed: launcher and nodes, OMPI_MCA_*, the hostfile; no PET_*",
    ),
    "trainer-mpi-no-torchrun-needed": Case(
        _on("trainer-v2.3", _MPI_JOB + _DS + "env: [{name: PET_NNODES, value: '9'}]\n"),
        expected_exit=0,
        about="an MPI launcher runs mpirun: no torchrun warning, PET_* are not reserved",
    ),
    "trainer-mpi-slots-by-name": Case(
        _on(
            "trainer-v2.1",
            _MPI_JOB
            + "trainJob: {runtimeRef: {name: deepspeed-distributed}, numProcPerNode: auto}\n",
        ),
        about="the hostfile's slots are a number: auto on an MPI runtime is an error",
    ),
    "trainer-mpi-launcher-name-too-long": Case(
        _on("trainer-v2.3", "name: " + "d" * 51 + "\n" + _MPI_JOB + _DS),
        about="{job}-launcher-0-0 is the longest hostname of an MPI TrainJob",
    ),
    "trainer-runtime-policy-contradicts": Case(
        _on(
            "trainer-v2.3",
            _MPI_JOB
            + "trainJob: {runtimeRef: {name: deepspeed-distributed}, runtimePolicy: torch}\n",
        ),
        about="kgen knows deepspeed-distributed's mlPolicy: a declaration saying otherwise is wrong",
    ),
    "trainer-runtime-policy-unknown-explained": Case(
        _v23("trainJob: {runtimeRef: {name: team-runtime, kind: TrainingRuntime}}\n"),
        args=("explain", "train", "--env", "dev"),
        expected_exit=0,
        about="a runtime kgen does not know: explain says so, rather than guess PET_*",
    ),
    "trainer-runtime-policy-of-a-wrong-type": Case(
        _v23("trainJob: {runtimePolicy: [mpi]}\n"),
        about="torch or mpi, nothing else",
    ),
    "trainer-num-proc-arabic-indic-digit": Case(
        _v23("trainJob: {numProcPerNode: '٣'}\n"),
        about="str.isdigit() takes it; the CRD's integer does not: ASCII digits only",
    ),
    "trainer-num-proc-superscript-two": Case(
        _v23("trainJob: {numProcPerNode: '²'}\n"),
        about="isdigit() but not int(): refused with kgen's message, not Python's",
    ),
    "trainer-num-proc-beyond-int32": Case(
        _v23("trainJob: {numProcPerNode: '99999999999'}\n"),
        about="numProcPerNode is an int32 in the CRD",
    ),
    "trainer-import-mpi-jobs-patched-differently": Case(
        _trainjob(
            "  runtimeRef: {name: deepspeed-distributed}\n"
            "  trainer: {image: 'x:1', numNodes: 3, command: [mpirun]}\n"
            "  runtimePatches:\n  - manager: kgen.io/kgen\n"
            "    trainingRuntimeSpec:\n      template:\n        spec:\n"
            "          replicatedJobs:\n"
            "          - {name: node, template: {spec: {template: {spec: {nodeSelector: {pool: a}}}}}}\n"
            "          - {name: launcher, template: {spec: {template: {spec: {nodeSelector: {pool: b}}}}}}\n"
        ),
        args=_IMPORT,
        about="one pod template per job spec: a second, different one is never dropped",
    ),
    "trainer-committed-render-not-yaml": Case(
        _v23(),
        prepare=_committed_then(lambda path: path.write_bytes(b"\x00\xff: [\n")),
        about="immutable fields cannot be checked against it: said, never skipped",
    ),
    "trainer-committed-render-a-fifo": Case(
        _v23(),
        prepare=_committed_then(_fifo),
        about="never opened: a pipe would block the read",
    ),
    "trainer-committed-render-links-out": Case(
        _v23(),
        prepare=_committed_then(_link_out),
        about="a link out of the project is not followed",
    ),
    "trainer-committed-render-huge": Case(
        _v23(),
        prepare=_committed_then(lambda path: path.write_text("a: " + "b" * 2_000_000)),
        about="bounded like any input",
    ),
    "trainer-committed-render-edited-by-hand": Case(
        _v23(),
        prepare=_committed_then(
            lambda path: path.write_text(
                path.read_text().replace(
                    "trainer.kubeflow.org/trainjob-controller",
                    "kueue.x-k8s.io/multikueue",
                )
            )
        ),
        about="the committed managedBy differs: the update changes an immutable field",
    ),
}
