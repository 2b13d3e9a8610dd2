"""Folders kgen.yaml names: inside the project, of a length the OS takes, and (for what
kgen owns) one spelling in the alphabet of its index."""

from __future__ import annotations

import posixpath
import re
from typing import Annotated

from pydantic import AfterValidator

from kgen.spec.fields import checked

# A path kgen.yaml names is opened as given: NAME_MAX and a bound well under PATH_MAX
# keep the OS from refusing it later (ENAMETOOLONG), where it would not be located.
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 1024
# kgen's index lists `<output>/<env>/<file>` in this alphabet (kgen.output.index_grammar),
# and the output root's name with spaces inside it too; an output root that starts a
# line another way ('#out' reads as a comment) would disown kgen's own files.
_OUTPUT_PART = re.compile(r"[A-Za-z0-9_.](?:[A-Za-z0-9._ -]*[A-Za-z0-9._-])?")


def relative_dir_problem(value: str) -> str | None:
    """A path inside the project: relative, no '..', printable, of a length the OS
    takes."""
    if not value.isprintable():
        return f"'{value}' has a control character; name a plain path in the project"
    parts = value.split("/")
    if value.startswith("/") or ".." in parts or "\\" in value or not value.strip("./"):
        return f"'{value}' must be a folder inside the project, without '..'"
    return _too_long(value)


def _too_long(value: str) -> str | None:
    size = len(value.encode())
    longest = max(len(part.encode()) for part in value.split("/"))
    if size > MAX_PATH_BYTES or longest > MAX_NAME_BYTES:
        return (
            f"the path is {size:,} bytes long; kgen takes paths of at most"
            f" {MAX_PATH_BYTES:,} bytes, and names of at most {MAX_NAME_BYTES} bytes"
            " between the '/'s"
        )
    return None


def _output_dir(value: str) -> str:
    """The output root as one spelling: the index lists `<output>/<env>/<file>` and
    accepts only normalised paths, so `./manifests/` must become `manifests`."""
    normal = posixpath.normpath(value)
    if not all(_OUTPUT_PART.fullmatch(part) for part in normal.split("/")):
        raise ValueError(
            f"'{value}' cannot be the output folder: its names may hold only ASCII"
            " letters, digits, '.', '_', '-' and spaces within, and not start with '-'"
            " (kgen's index lists its files in that alphabet)"
        )
    return normal


RelativeDir = Annotated[str, checked(relative_dir_problem)]
OutputDir = Annotated[RelativeDir, AfterValidator(_output_dir)]
