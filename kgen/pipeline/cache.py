"""The incremental path: what earlier runs worked out, keyed by content hashes.

Two tables, each a single file under the user's cache folder (never inside the project,
so a pull request cannot plant one):

- identities: job file (name and bytes) -> the name, framework and labels selectors
  read, so a run need not parse specs it does not render;
- renders: (kgen's code and dependencies, kgen.yaml, overlays, CRDs, environment, job
  bytes) -> that render's facts and problems, its files by digest (kgen.output.digests);
- their texts, apart, in sixteen files by the key's first hex digit: `build --check`
  reads none of them, and saving a few new renders rewrites only the files they are in.

A key covers every input of what it stands for, and kgen's own code, so a hit gives
exactly what a cold run would (tests compare the two byte for byte). Files that are
missing, unreadable, corrupt or from another kgen are ignored; only kgen's own plain
data types can be unpickled. `KGEN_CACHE_DIR` moves the folder; `KGEN_NO_CACHE=1` or
`--no-cache` turns it off.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

from kgen.errors import Problem
from kgen.pipeline.facts import Facts

Identity = tuple[str, str, Any]  # name, framework, labels
Entry = tuple[Facts | None, list[Problem]]
Texts = tuple[str, ...]

# Packages whose versions change what kgen renders or reports.
_DEPENDENCIES = (
    *("pydantic", "pydantic-core", "PyYAML", "ruamel.yaml"),
    *("jsonschema", "jsonschema-rs", "kubernetes-validate"),
    *("jsonpatch", "jsonpointer"),
)
_ALLOWED = {
    ("builtins", name) for name in ("frozenset", "set", "tuple", "list", "dict")
} | {
    ("decimal", "Decimal"),
    ("kgen.errors", "Problem"),
    *(
        ("kgen.pipeline.facts", name)
        for name in ("Facts", "Claim", "JobLoad", "OutFile")
    ),
}


def digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


@cache
def code_digest() -> str:
    """kgen's own source and the versions of what it renders with."""
    parts: list[bytes | str] = [sys.version]
    package = Path(__file__).resolve().parents[1]  # kgen/, with every subpackage
    for path in sorted(package.rglob("*.py")):
        parts += [path.relative_to(package).as_posix(), path.read_bytes()]
    versions = installed_versions()
    for name in _DEPENDENCIES:
        version = versions.get(_normalized(name))
        parts.append(f"{name}=={version}" if version else f"{name} missing")
    return digest(*parts)


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


def cache_folder(root: Path) -> Path | None:
    if os.environ.get("KGEN_NO_CACHE", "") not in ("", "0"):
        return None
    base = os.environ.get("KGEN_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kgen"
    )
    return Path(base) / digest(str(root.resolve()))[:24]


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not cache data")
        return super().find_class(module, name)


class Cache:
    """The tables for one project; `folder` None means off (every lookup misses)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.identities: dict[str, Identity] = self._read("identities")
        self._renders: dict[str, Entry] | None = None
        self._used: dict[str, Entry] = {}
        # Shards of texts read so far, and the texts of renders made this run.
        self._texts: dict[str, dict[str, Texts]] = {}
        self._fresh: dict[str, Texts] = {}
        self._dirty: set[str] = set()

    def identity(self, key: str) -> Identity | None:
        return self.identities.get(key)

    def remember_identity(self, key: str, identity: Identity) -> None:
        if self.folder is not None and self.identities.get(key) != identity:
            self.identities[key] = identity
            self._dirty.add("identities")

    def render(self, key: str, *, emitted: bool, texts: bool = True) -> Entry | None:
        """A render's entry; with `emitted`, only one made with its files, and their
        texts unless `texts` is False (each file's text is "" then: its digest says
        what it is)."""
        if self.folder is None:
            return None
        if self._renders is None:
            self._renders = self._read("renders")
        entry = self._renders.get(key)
        if entry is None:
            return None
        facts = entry[0]
        if emitted and facts is not None and not facts.files:
            return None
        full = entry
        if emitted and texts and facts is not None:
            found = self.texts(key)
            if found is None or len(found) != len(facts.files):
                return None
            pairs = zip(facts.files, found, strict=True)
            files = tuple(f._replace(text=t) for f, t in pairs)
            full = facts._replace(files=files), entry[1]
        self._used[key] = entry
        return full

    def texts(self, key: str) -> Texts | None:
        """The texts of the files of the render at `key`, if the cache has them."""
        found = None if self.folder is None else self._shard(key).get(key)
        if not isinstance(found, tuple) or not all(isinstance(t, str) for t in found):
            return None  # none, or not what kgen writes there
        return found

    def remember_texts(self, key: str, texts: Texts) -> None:
        """The texts of a render whose entry the cache has, made again."""
        if self.folder is not None:
            self._fresh[key] = texts
            self._dirty.add("texts")

    def remember_render(self, key: str, entry: Entry) -> None:
        if self.folder is None:
            return
        facts = entry[0]
        # Texts a build spooled (kgen.output.spool) are not kept: "" is no text.
        if facts is not None and facts.files and facts.files[0].text:
            self._fresh[key] = tuple(f.text for f in facts.files)
            files = tuple(f._replace(text="") for f in facts.files)
            entry = facts._replace(files=files), entry[1]
        self._used[key] = entry
        self._dirty.add("renders")

    def save(self, *, whole: bool) -> None:
        """Write what changed; after a run over everything, only the renders it used."""
        if self.folder is None or not self._dirty:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            if "identities" in self._dirty:
                self._write("identities", self.identities)
            if "renders" in self._dirty:
                renders = self._used
                if not whole:
                    renders = {**(self._renders or self._read("renders")), **renders}
                self._write("renders", renders)
                self._save_texts(renders if whole else None)
            elif "texts" in self._dirty:
                self._save_texts(None)
        except OSError:
            pass  # a cache that cannot be written only costs time
        self._dirty.clear()

    def _save_texts(self, kept: dict[str, Entry] | None) -> None:
        """The shards new texts go into, and those read this run (after a run over
        everything, without the texts of renders it did not use)."""
        shards = {key[0] for key in self._fresh} | self._texts.keys()
        for shard in sorted(shards):
            table = self._texts.get(shard)
            if table is None:
                table = self._read(f"texts-{shard}")
            fresh = {k: t for k, t in self._fresh.items() if k[0] == shard}
            gone = [k for k in table if k not in kept] if kept is not None else []
            if fresh or gone:
                table = {**table, **fresh}
                for key in gone:
                    del table[key]
                self._write(f"texts-{shard}", table)
                if shard in self._texts:
                    self._texts[shard] = table
        self._fresh.clear()  # saved: a later save in this process leaves them be

    def _shard(self, key: str) -> dict[str, Texts]:
        shard = key[0]
        if shard not in self._texts:
            self._texts[shard] = self._read(f"texts-{shard}")
        return self._texts[shard]

    def _read(self, name: str) -> dict[str, Any]:
        if self.folder is None:
            return {}
        try:
            with open(self.folder / f"{name}.pickle", "rb") as handle:
                salt, table = _Unpickler(handle).load()
        except Exception:
            return {}
        return table if salt == code_digest() and isinstance(table, dict) else {}

    def _write(self, name: str, table: dict[str, Any]) -> None:
        assert self.folder is not None
        path = self.folder / f"{name}.pickle"
        partial = path.with_name(f".{name}.{os.getpid()}.tmp")
        with open(partial, "wb") as handle:
            pickle.dump((code_digest(), table), handle, protocol=5)
        os.replace(partial, path)
