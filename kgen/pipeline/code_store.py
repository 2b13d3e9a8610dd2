"""kgen's code digest kept from one run to the next, in the user's cache folder.

Every run that reads or writes a cache salts it with kgen.pipeline.code.code_digest:
kgen's sources read and hashed, about 9 ms a run. Their lstat (code_identity: path,
size, times and inode of each source, the Python and the dependencies' versions) takes a
third of that and changes whenever a source does (its ctime cannot be set back). So the
digest is kept beside the projects' cache folders, one plain JSON file per installed
kgen, keyed by that identity: another identity, or a file that is missing, unreadable,
corrupt, too big or not a regular file, means the sources are read again. The file is
written aside and renamed into place, and never in a project; none with the cache off.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from kgen.pipeline.cache_base import cache_base
from kgen.pipeline.cache_file import read_cache_file, write_cache_file

# Far more than the file ever holds (two hex digests and their names).
MAX_BYTES = 4096
_HEX = re.compile(r"[0-9a-f]{64}")
# Off for a run with --no-cache (kgen.cli_settings): neither read nor written.
_off = False


def keep(on: bool) -> None:
    """Keep the digest (the default), or with --no-cache neither read nor write it."""
    global _off
    _off = not on


def stored_digest(identity: str, compute: Callable[[], str]) -> str:
    """The digest kept for `identity`, else `compute`'s (kept for the next run)."""
    path = None if _off else _place()
    if path is None:
        return compute()
    found = _read(path)
    if found is not None and found.get("identity") == identity:
        kept = found.get("digest")
        if isinstance(kept, str) and _HEX.fullmatch(kept):
            return kept
    value = compute()
    _write(path, {"identity": identity, "digest": value})
    return value


def _place() -> Path | None:
    base = cache_base()
    if base is None:
        return None
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    name = hashlib.sha256(os.fsencode(package)).hexdigest()[:24]
    return base / f"code-{name}.json"


def _read(path: Path) -> dict[str, object] | None:
    raw = read_cache_file(path, MAX_BYTES)
    try:
        found = None if raw is None else json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


def _write(path: Path, value: dict[str, str]) -> None:
    """A file that cannot be written is no error: the next run reads the sources again."""
    text = json.dumps(value, separators=(",", ":"), sort_keys=True)
    write_cache_file(path, text.encode("utf-8"))
