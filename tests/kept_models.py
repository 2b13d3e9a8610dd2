"""The suite's spec models, completed as a run with a warm cache completes them: from
the core schemas kgen.spec.prebuilt keeps. Every message test and golden then goes
through kept schemas; the subprocess tests (fresh caches) go through pydantic's build."""

from __future__ import annotations

import tempfile
from pathlib import Path

from pydantic._internal._mock_val_ser import set_model_mocks

from kgen.check.stored import use_folder
from kgen.kinds import KINDS
from kgen.spec import prebuilt
from kgen.spec.base import SpecModel


def spec_models() -> list[type[SpecModel]]:
    """Every spec model: kgen.yaml's and the overlays', and each kind's job models."""
    import kgen.spec.project  # noqa: F401

    for kind in KINDS.values():
        kind.model()
    found: list[type[SpecModel]] = []
    pending = list(SpecModel.__subclasses__())
    while pending:
        model = pending.pop()
        if model not in found and model.__module__.startswith("kgen."):
            found.append(model)
            pending += model.__subclasses__()
    return sorted(found, key=lambda m: (m.__module__, m.__qualname__))


def complete_from_kept_schemas() -> list[str]:
    """Build, keep and complete again from what was kept: the models that could not be
    kept (none, tests/test_prebuilt_models.py says) by name."""
    use_folder(Path(tempfile.mkdtemp(prefix="kgen-test-models-")))
    try:
        missing = []
        for model in spec_models():
            model.model_rebuild()
            prebuilt.keep(model)
            set_model_mocks(model)
            model.__pydantic_complete__ = False
            if not prebuilt.complete(model):
                missing.append(model.__qualname__)
                model.model_rebuild()
        return missing
    finally:
        use_folder(None)
