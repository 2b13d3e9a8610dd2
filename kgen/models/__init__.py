"""The job spec users write, as pydantic models (the one place user input is typed)."""

from __future__ import annotations

from kgen.models.addons import CodeSync, TensorBoard
from kgen.models.base import SpecModel
from kgen.models.job import (
    JOB_MODELS,
    Framework,
    JobSpec,
    PyTorchJobSpec,
    Role,
    TFJobSpec,
    role_items,
)
from kgen.models.pod import EnvVar, ResourceAmounts, Resources, Toleration
from kgen.models.policy import ElasticPolicy, RunPolicy
from kgen.models.storage import Volume

__all__ = [
    "JOB_MODELS",
    "CodeSync",
    "ElasticPolicy",
    "EnvVar",
    "Framework",
    "JobSpec",
    "PyTorchJobSpec",
    "ResourceAmounts",
    "Resources",
    "Role",
    "RunPolicy",
    "SpecModel",
    "TFJobSpec",
    "TensorBoard",
    "Toleration",
    "Volume",
    "role_items",
]
