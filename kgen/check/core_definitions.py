"""The core Kubernetes definitions of each release, as kubernetes-validate ships them:
its OpenAPI definitions as JSON Schema, "strict" variants included (unknown fields are
errors), read once per process (about 15 ms) and found without importing the package."""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any


@functools.cache
def _schema_root() -> Path:
    """kubernetes-validate's schema folder, found without importing the package (its
    import loads jsonschema, referencing and packaging: a fifth of start-up)."""
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:  # pragma: no cover
        raise RuntimeError("kubernetes-validate is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "kubernetes-json-schema"


def supported_versions() -> list[str]:
    root = _schema_root()
    found = [
        p.name[1:].removesuffix(".0-local-strict")
        for p in root.iterdir()
        if p.name.endswith("-local-strict")
    ]
    return sorted(found, key=lambda v: tuple(int(n) for n in v.split(".")))


def check_version(value: str) -> str | None:
    known = supported_versions()
    if value not in known:
        return f"kgen can validate against Kubernetes {known[0]} to {known[-1]}, not {value}"
    return None


@functools.cache
def definitions(version: str) -> dict[str, Any]:
    """The strict core definitions of Kubernetes `version` (`1.33`), by name."""
    root = _schema_root()
    folder = root / f"v{version}.0-local-strict"
    with folder.joinpath("_definitions.json").open(encoding="utf-8") as handle:
        loaded: dict[str, Any] = json.load(handle)["$defs"]
    return loaded
