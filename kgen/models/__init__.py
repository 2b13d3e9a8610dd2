"""The job spec users write, as pydantic models (the one place user input is typed).

Names are imported on first use: building the job models is a fifth of kgen's start-up,
and a run whose renders all come from the cache never needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgen.models.addons import CodeSync, TensorBoard
    from kgen.models.base import Framework, SpecModel
    from kgen.models.job import (
        JOB_MODELS,
        JobSpec,
        PyTorchJobSpec,
        Role,
        TFJobSpec,
        role_items,
    )
    from kgen.models.pod import EnvVar, ResourceAmounts, Resources, Toleration
    from kgen.models.policy import ElasticPolicy, RunPolicy
    from kgen.models.storage import Volume

_HOMES = {
    "CodeSync": "addons",
    "TensorBoard": "addons",
    "Framework": "base",
    "SpecModel": "base",
    "JOB_MODELS": "job",
    "JobSpec": "job",
    "PyTorchJobSpec": "job",
    "Role": "job",
    "TFJobSpec": "job",
    "role_items": "job",
    "EnvVar": "pod",
    "ResourceAmounts": "pod",
    "Resources": "pod",
    "Toleration": "pod",
    "ElasticPolicy": "policy",
    "RunPolicy": "policy",
    "Volume": "storage",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'kgen.models' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"kgen.models.{home}"), name)
    globals()[name] = value
    return value


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
