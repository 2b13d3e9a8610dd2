"""Output schemas kept from one run to the next, in the user's cache folder.

A job's output schema is its kind's envelope for its target with the core definitions it
references (kgen.check.output.job_schema): building it reads Kubernetes' 1.4 MB of
definitions and walks a hundred of them, about 10 ms, in every run that renders a job of
that kind (a one-spec `validate`: a twentieth of its time). Parsing the stored result takes
a tenth of that. A stored schema is plain JSON, keyed by what it was built from and salted
with kgen's code and dependencies (kgen.pipeline.code), so another kgen, or a file that is
missing, unreadable, corrupt or not a regular file, is simply built again. The folder is
the project's cache folder (never the project), and off with the cache (`--no-cache`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgen.pipeline.cache_file import read_cache_file, write_cache_file
from kgen.pipeline.code import code_digest, digest

# Set by kgen.load.project with the run's cache folder; None: nothing is kept.
_folder: Path | None = None
# More than any schema kgen builds (the largest is about 0.3 MB).
MAX_BYTES = 16 * 1024 * 1024


def use_folder(folder: Path | None) -> None:
    """Keep schemas in `folder` (the project's cache folder), or nowhere."""
    global _folder
    _folder = folder


def folder() -> Path | None:
    """Where schemas are kept (None: nowhere)."""
    return _folder


def is_stored(kind: str, key: tuple[str, ...]) -> bool:
    """Whether a file is kept for (kind, key), whoever wrote it (read_json says whether
    it is this kgen's)."""
    return _folder is not None and _place(_folder, kind, key)[0].exists()


def stored_schema(
    key: tuple[str, ...], build: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """The schema `build` makes for `key`, from the cache when an earlier run of this
    very kgen stored it."""
    found = read_json("schema", key)
    if isinstance(found, dict):
        return found
    schema = build()
    # Without the cache, not even turned into text: nothing would be kept.
    if _folder is not None:
        text = _plain_text(schema)
        if text is not None:
            _write(*_place(_folder, "schema", key), text)
    return schema


def stored_text(key: tuple[str, ...]) -> str | None:
    """The schema an earlier run of this very kgen stored for `key`, as its JSON text,
    unparsed, if it is an object: for jsonschema-rs, which reads the text itself
    (kgen.check.core.compiled). Parsed here first, an output schema cost a third of what
    compiling it costs. None: nothing kept (stored_schema builds it)."""
    if _folder is None:
        return None
    path, salt = _place(_folder, "schema", key)
    raw = read_cache_file(path, MAX_BYTES)
    # What _write puts before the value, and the object's first brace.
    head = b'{"salt":' + json.dumps(salt).encode() + b',"value":{'
    if raw is None or not raw.startswith(head) or not raw.endswith(b"}"):
        return None
    try:
        return raw[len(head) - 1 : -1].decode("utf-8")
    except UnicodeDecodeError:
        return None


def read_json(
    kind: str,
    key: tuple[str, ...],
    *,
    object_hook: Callable[[dict[str, Any]], Any] | None = None,
) -> Any:
    """What write_json kept for (kind, key) with this very kgen, else None; each map
    parsed goes through `object_hook` (json's)."""
    if _folder is None:
        return None
    path, salt = _place(_folder, kind, key)
    return _read(path, salt, object_hook)


def write_json(kind: str, key: tuple[str, ...], value: Any) -> None:
    """Keep `value` (plain JSON) for (kind, key), if the cache is on."""
    if _folder is not None:
        try:
            text = json.dumps(value, separators=(",", ":"))
        except (TypeError, ValueError):
            return
        _write(*_place(_folder, kind, key), text)


def _place(folder: Path, kind: str, key: tuple[str, ...]) -> tuple[Path, str]:
    salt = digest(code_digest(), kind, *key)
    return folder / f"{kind}-{digest(*key)[:24]}.json", salt


def _plain_text(value: Any) -> str | None:
    """`value` as the JSON text _write keeps, if it is plain JSON: what is read back
    must equal what was built (a tuple would come back a list). Written once, parsed
    once: the text checked is the text kept."""
    try:
        text = json.dumps(value, allow_nan=False, separators=(",", ":"))
        return text if json.loads(text) == value else None
    except (TypeError, ValueError, RecursionError):
        return None


def _read(
    path: Path, salt: str, object_hook: Callable[[dict[str, Any]], Any] | None = None
) -> Any:
    raw = read_cache_file(path, MAX_BYTES)
    # The salt first, as _write puts it: another kgen's file is not even parsed
    # (nor are its names looked up by an object_hook).
    if raw is None or not raw.startswith(b'{"salt":"%s",' % salt.encode()):
        return None
    try:
        stored = json.loads(raw, object_hook=object_hook)
    except (ValueError, RecursionError):
        return None
    if not isinstance(stored, dict) or stored.get("salt") != salt:
        return None
    return stored.get("value")


def _write(path: Path, salt: str, value_text: str) -> None:
    """`value_text` (JSON) kept with its salt, first: the text of
    json.dumps({"salt": salt, "value": value}, separators=(",", ":")), which _read
    looks for. Written aside and renamed into place: a reader sees the whole file or
    none. A cache that cannot be written is no error: the next run builds it again."""
    text = '{"salt":' + json.dumps(salt) + ',"value":' + value_text + "}"
    write_cache_file(path, text.encode("utf-8"))
