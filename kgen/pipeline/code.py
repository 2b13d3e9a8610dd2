"""What kgen's own code is, for the caches and records: its sources, the Python that
runs them and the versions of what it renders with."""

from __future__ import annotations

import hashlib
import os
import re
import sys
from functools import cache
from pathlib import Path

# Packages whose versions change what kgen renders or reports.
_DEPENDENCIES = (
    *("pydantic", "pydantic-core", "PyYAML", "ruamel.yaml"),
    *("jsonschema", "jsonschema-rs", "kubernetes-validate"),
    *("jsonpatch", "jsonpointer"),
)


def digest(*parts: bytes | str) -> str:
    return digest_after(hashlib.sha256(), *parts)


def digest_after(start: hashlib._Hash, *parts: bytes | str) -> str:
    """digest(*first, *parts), where `start` is a copy of `hashing(*first)`."""
    h = start
    for part in parts:
        # A path from the command line or the file system may hold bytes that are not
        # UTF-8 (a surrogate escape each): hashed as those bytes, never an error.
        data = (
            part.encode("utf-8", "surrogateescape") if isinstance(part, str) else part
        )
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


@cache
def hashing(*parts: bytes | str) -> hashlib._Hash:
    """The hash of `parts` so far, for digest_after (copy it: it is shared)."""
    h = hashlib.sha256()
    digest_after(h, *parts)
    return h


@cache
def code_digest() -> str:
    """kgen's own source and the versions of what it renders with: kept in the user's
    cache by code_identity (kgen.pipeline.code_store), read in full when that changed."""
    from kgen.pipeline.code_store import stored_digest

    return stored_digest(code_identity(), source_digest)


def source_digest() -> str:
    """code_digest from the sources' bytes (about 9 ms for kgen's 300 modules)."""
    parts: list[bytes | str] = [sys.version]
    package = Path(__file__).resolve().parents[1]  # kgen/, with every subpackage
    for path in sorted(package.rglob("*.py")):
        parts += [path.relative_to(package).as_posix(), path.read_bytes()]
    versions = installed_versions()
    for name in _DEPENDENCIES:
        version = versions.get(_normalized(name))
        parts.append(f"{name}=={version}" if version else f"{name} missing")
    return digest(*parts)


@cache
def code_identity() -> str:
    """code_digest by the sources' lstat (path, size, times, inode) instead of their
    bytes: a tenth of the time, for the records a replayed check reads and the key of
    the stored code_digest (kgen.pipeline.code_store)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found: list[tuple[str, int, int, int, int]] = []
    _identify(package, "", found)
    versions = installed_versions()
    dependencies = [(name, versions.get(_normalized(name))) for name in _DEPENDENCIES]
    return digest(sys.version, repr(found), repr(dependencies))


def _identify(
    folder: str, relative: str, found: list[tuple[str, int, int, int, int]]
) -> None:
    """Each source below `folder`, in name order: one scandir a folder and one lstat a
    source (os.walk and os.path.relpath took twice as long)."""
    with os.scandir(folder) as listing:
        entries = sorted(listing, key=lambda entry: entry.name)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                _identify(entry.path, f"{relative}{entry.name}/", found)
        elif entry.name.endswith(".py"):
            status = entry.stat(follow_symlinks=False)
            found.append(
                (
                    relative + entry.name,
                    status.st_size,
                    status.st_mtime_ns,
                    status.st_ctime_ns,
                    status.st_ino,
                )
            )


def installed_versions() -> dict[str, str]:
    """Normalised distribution name -> version, from the `*.dist-info` folders on
    sys.path, first found wins (as importlib.metadata finds them). One listing per
    folder: importlib.metadata takes 40 ms to import and as long to look up seven."""
    found: dict[str, str] = {}
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info"):
                dist, _, version = name[: -len(".dist-info")].partition("-")
                found.setdefault(_normalized(dist), version)
    return found


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
