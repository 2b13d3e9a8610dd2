"""Folders kgen.yaml names: inside the project, and (for what kgen owns) one spelling."""

from __future__ import annotations

import posixpath
from typing import Annotated

from pydantic import AfterValidator

from kgen.spec.fields import checked


def _relative_dir(value: str) -> str | None:
    parts = value.split("/")
    if value.startswith("/") or ".." in parts or "\\" in value or not value.strip("./"):
        return f"'{value}' must be a folder inside the project, without '..'"
    return None


def _output_dir(value: str) -> str:
    """The output root as one spelling: the index lists `<output>/<env>/<file>` and
    accepts only normalised paths, so `./manifests/` must become `manifests`."""
    if not value.isprintable():
        raise ValueError(f"'{value}' has a control character; name a plain folder")
    return posixpath.normpath(value)


RelativeDir = Annotated[str, checked(_relative_dir)]
OutputDir = Annotated[RelativeDir, AfterValidator(_output_dir)]
