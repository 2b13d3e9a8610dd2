"""The TrainJob spec: a PyTorch job spec plus its `trainJob:` section (the runtime, the
processes per node, the initializers, suspend and managedBy). Only a trainer target
takes the section (kgen.kinds.trainer.sections says so elsewhere)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, WithJsonSchema

from kgen.kinds.pytorch.spec import NprocPerNode, PyTorchJobSpec, PyTorchRoles
from kgen.kinds.pytorch.spec import scale_limit as scale_limit
from kgen.kinds.trainer import CONTROLLER, MULTIKUEUE
from kgen.spec.base import SpecModel
from kgen.spec.fields import Image, ObjectName, checked
from kgen.spec.job import JobSpec

# kubeflow/trainer@v2.3.0 trainjob_types.go: StorageURI's CEL rule and MaxLength.
STORAGE_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://.+$")
MAX_URI = 2048


def _storage_uri(value: str) -> str | None:
    if len(value) > MAX_URI:
        return f"storageUri must be at most {MAX_URI} characters"
    if not STORAGE_URI.match(value):
        return "storageUri must be a URI with a scheme: hf://, s3://, ..."
    return None


StorageUri = Annotated[
    str,
    checked(_storage_uri),
    WithJsonSchema(
        {"type": "string", "pattern": STORAGE_URI.pattern, "maxLength": MAX_URI}
    ),
]


class RuntimeRef(SpecModel):
    """The training runtime the TrainJob runs on."""

    name: ObjectName = Field(
        description="The runtime's name; by default the one Kubeflow installs for the framework (`torch-distributed`).",
        examples=["torch-distributed"],
    )
    kind: Literal["ClusterTrainingRuntime", "TrainingRuntime"] = Field(
        "ClusterTrainingRuntime",
        description="`TrainingRuntime` for a runtime in the job's own namespace.",
        examples=["TrainingRuntime"],
    )


class StorageSource(SpecModel):
    """Where an initializer downloads from, before the nodes start."""

    storage_uri: StorageUri = Field(
        description="`hf://`, `s3://` or another scheme the runtime's initializer reads.",
        examples=["hf://meta-llama/Llama-3.2-1B"],
    )
    secret: ObjectName | None = Field(
        None,
        description="The Secret with the credentials (e.g. HF_TOKEN), by name.",
        examples=["hf-token"],
    )


class Initializer(SpecModel):
    """The runtime's dataset and model initializers."""

    dataset: StorageSource | None = Field(
        None,
        description="The dataset to download.",
        examples=[{"storageUri": "hf://tatsu-lab/alpaca"}],
    )
    model: StorageSource | None = Field(
        None,
        description="The model to download.",
        examples=[{"storageUri": "hf://meta-llama/Llama-3.2-1B", "secret": "hf-token"}],
    )


class TrainJobSection(SpecModel):
    """What only a TrainJob says (Kubeflow Trainer v2 targets only)."""

    runtime_ref: RuntimeRef | None = Field(
        None,
        description="The runtime; default the ClusterTrainingRuntime `torch-distributed`.",
        examples=[{"name": "torch-distributed"}],
    )
    runtime_policy: Literal["torch", "mpi"] | None = Field(
        None,
        description="The ML policy of a runtime kgen does not know by name (`torch` or `mpi`): what `kgen explain` shows and which launcher rules apply. Kubeflow's own runtimes need none.",
        examples=["mpi"],
    )
    num_proc_per_node: NprocPerNode | None = Field(
        None,
        description="Processes per node. Default: the GPU count, else 1. `auto`, `cpu` and `gpu` on trainer-v2.1 only.",
        examples=[4],
    )
    initializer: Initializer | None = Field(
        None,
        description="Dataset and model downloads before training.",
        examples=[{"model": {"storageUri": "hf://meta-llama/Llama-3.2-1B"}}],
    )
    suspend: bool = Field(
        False, description="Create the TrainJob suspended.", examples=[True]
    )
    managed_by: Literal[CONTROLLER, MULTIKUEUE] | None = Field(  # type: ignore[valid-type]
        None,
        description="`kueue.x-k8s.io/multikueue` to let MultiKueue dispatch it.",
        examples=[MULTIKUEUE],
    )


class TrainJobSpec(PyTorchJobSpec):
    """A PyTorch job rendered as a TrainJob."""

    # A TrainJob without trainer.image runs the runtime's trainer node's image
    # (kubeflow/trainer@v2.3.0: examples/yaml/basic/01-hello-world.yaml); every other
    # kind has no such default and requires it (kgen.spec.job).
    image: Image | None = Field(  # type: ignore[assignment]
        None,
        description="The training image. A TrainJob may leave it out: the runtime's trainer node's image runs.",
        examples=["docker.io/pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime"],
    )

    train_job: TrainJobSection = Field(
        TrainJobSection.model_construct(),
        description="TrainJob settings (trainer targets only).",
        examples=[{"runtimeRef": {"name": "torch-distributed"}}],
    )


MODEL = TrainJobSpec
ROLES = PyTorchRoles
REFERENCE: list[tuple[str, type[BaseModel]]] = [
    ("trainJob", TrainJobSection),
    ("trainJob.runtimeRef", RuntimeRef),
    ("trainJob.initializer", Initializer),
    ("trainJob.initializer.dataset, trainJob.initializer.model", StorageSource),
]
TYPE_NAMES: dict[Any, str] = {StorageUri: "URI"}


def own(spec: JobSpec) -> TrainJobSpec:
    """`spec` as the TrainJob spec the registry picked it for."""
    assert isinstance(spec, TrainJobSpec)
    return spec
