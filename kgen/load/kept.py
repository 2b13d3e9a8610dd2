"""kgen.yaml and the overlays as the last run validated them, kept in the project's cache
folder.

Every run parses and validates kgen.yaml and each overlay it names, and building the
project's models' validators is most of that: about 6 ms of a one-spec `validate` or
rebuild, whose edit rarely touches them. A file's entry is its document (data and
positions) and its model, keyed by the file's name and a digest of its bytes, and kept
only when it loaded without a problem; so a hit gives exactly what parsing and
validating those bytes gives. The table is salted with kgen's code and dependencies
(kgen.pipeline.code): another kgen's is ignored, as is a file that is missing,
unreadable, corrupt, or not a regular file. Only documents, kgen's spec models and
plain data can be unpickled. Off with the cache (`--no-cache`).
"""

from __future__ import annotations

import contextlib
import io
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from kgen.errors import Problem
from kgen.load.document import Document
from kgen.load.jobs import located
from kgen.pipeline.cache_file import read_cache_file, write_cache_file
from kgen.pipeline.code import code_digest, digest
from kgen.spec.base import SpecModel
from kgen.spec.validate import validate_model

NAME = "validated-inputs.pickle"
# Far more than any project's kgen.yaml and overlays (the repository's: 5 KB).
MAX_BYTES = 4 * 1024 * 1024
_BUILTINS = {"dict", "list", "tuple", "set", "frozenset"}
_DOCUMENTS = {("kgen.load.document", "Document"), ("kgen.load.document", "Origin")}

Entry = tuple[str, Document, SpecModel]  # bytes digest, document, model
M = TypeVar("M", bound=SpecModel)
Parse = Callable[[], tuple[Document | None, list[Problem]]]


class KeptInputs:
    """The validated inputs of one project; `folder` None: nothing is kept."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._table: dict[str, Entry] = _read(folder / NAME) if folder else {}
        self._used: dict[str, Entry] = {}

    def load(
        self, display: str, raw: bytes | None, model: type[M], parse: Parse
    ) -> tuple[Document | None, M | None, list[Problem]]:
        """`display` (its bytes `raw`) parsed by `parse` and validated as `model`: the
        document, the model (None if invalid) and the problems, located. What these
        very bytes loaded to without a problem before, if kept."""
        hit = None if raw is None else self.get(display, raw, model)
        if hit is not None:
            spec: M = hit[2]  # type: ignore[assignment]  # get() checked its type
            return hit[1], spec, []
        doc, problems = parse()
        if doc is None:
            return None, None, problems
        valid, errors = validate_model(model, doc.data)
        return doc, valid, [*problems, *(located(p, doc) for p in errors)]

    def get(self, display: str, raw: bytes, model: type[SpecModel]) -> Entry | None:
        """The entry of `display` if it holds `model` validated from these bytes."""
        entry = self._table.get(display)
        if not (isinstance(entry, tuple) and len(entry) == 3):
            return None
        if entry[0] != digest(raw) or type(entry[2]) is not model:
            return None
        if not isinstance(entry[1], Document):
            return None
        self._used[display] = entry
        return entry

    def put(self, display: str, raw: bytes, doc: Document, spec: SpecModel) -> None:
        """Keep what `display`'s bytes loaded to, without a problem."""
        if self.folder is not None:
            self._used[display] = (digest(raw), doc, spec)

    def save(self) -> None:
        """Keep this run's entries alone, if they differ from what was read."""
        if self.folder is None or self._used == self._table:
            return
        with contextlib.suppress(pickle.PicklingError, TypeError, RecursionError):
            data = pickle.dumps((code_digest(), self._used))
            # What would not be read back (huge overlays) is not written each run.
            if len(data) <= MAX_BYTES:
                write_cache_file(self.folder / NAME, data)


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module == "builtins" and name in _BUILTINS) or (module, name) in _DOCUMENTS:
            return super().find_class(module, name)
        if module.startswith("kgen.spec."):
            found = super().find_class(module, name)
            if isinstance(found, type) and issubclass(found, SpecModel):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not a validated input")


def _read(path: Path) -> dict[str, Entry]:
    raw = read_cache_file(path, MAX_BYTES)
    if raw is None:
        return {}
    try:
        salt, table = _Unpickler(io.BytesIO(raw)).load()
    except Exception:  # anything a damaged or foreign file raises: not kept
        return {}
    if salt != code_digest() or not isinstance(table, dict):
        return {}
    return table
