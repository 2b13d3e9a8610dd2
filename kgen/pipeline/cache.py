"""The incremental path: what earlier runs worked out, keyed by content hashes.

Two tables under the user's cache folder (never inside the project, so a pull request
cannot plant one):

- identities: job file (name and bytes) -> the name, framework and labels selectors
  read, so a run need not parse specs it does not render;
- renders: (kgen's code and dependencies, kgen.yaml, overlays, CRDs, environment, job
  bytes) -> that render's facts and problems, its files by digest (kgen.output.digests);
- their texts, apart: `build --check` reads none of them.

Renders and texts are each in 64 files by the key's first six bits, so saving the few
renders a one-spec edit makes rewrites a few small files, not the whole table. After a
run over everything, a file that is rewritten keeps only the renders that run used, and
one whose unused renders have grown to half of it is rewritten.

A key covers every input of what it stands for, and kgen's own code, so a hit gives
exactly what a cold run would (tests compare the two byte for byte). Files that are
missing, unreadable, corrupt or from another kgen are ignored; only kgen's own plain
data types can be unpickled. A well-formed entry may still lie (CI restores the folder
from runs it did not check): the cache notes what it `served`, and kgen.pipeline.fresh
renders again what an answer that is not "up to date" rests on; under `distrusted()`
(kgen.commands.build_truth) every lookup misses and what the run makes replaces it. `KGEN_CACHE_DIR` moves the folder; `KGEN_NO_CACHE=1` or
`--no-cache` turns it off.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kgen.errors import Problem
from kgen.pipeline.cache_file import MAX_TABLE_BYTES, PlainUnpickler, open_cache_file
from kgen.pipeline.cache_place import cache_folder
from kgen.pipeline.cache_shapes import entry_ok, identity_ok
from kgen.pipeline.code import code_digest, code_identity, digest, installed_versions
from kgen.pipeline.facts import Facts

__all__ = [
    "Cache",
    "CacheDisagrees",
    "Identity",
    "cache_folder",
    "code_digest",
    "code_identity",
    "digest",
    "installed_versions",
]

Identity = tuple[str, str, Any]  # name, framework, labels
SHARDS = 64
Entry = tuple[Facts | None, list[Problem]]
Texts = tuple[str, ...]
# Set by kgen.commands.build_truth for a run again after the cache disagreed.
_distrust = False


class CacheDisagrees(Exception):
    """What the cache served is not what kgen makes of the inputs now (raised by
    kgen.pipeline.fresh; here, so that a command can catch it without loading that)."""


@contextlib.contextmanager
def distrusted() -> Iterator[None]:
    """Every lookup misses meanwhile; what the run makes is saved over the entries."""
    global _distrust
    _distrust = True
    try:
        yield
    finally:
        _distrust = False


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


def shard_of(key: str) -> str:
    """The file (of SHARDS) a render's entry and texts are in: the key's first six bits."""
    # Looked up, not worked out: 8,000 times a build of 1,000 jobs.
    return _SHARD_OF.get(key[:2]) or format(int(key[:2], 16) >> 2, "02x")


_SHARD_OF = {f"{byte:02x}": format(byte >> 2, "02x") for byte in range(256)}


class Cache:
    """The tables for one project; `folder` None means off (every lookup misses)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.identities: dict[str, Identity] = self._read("identities")
        # The identities this run asked for or made: every job file's, in a whole run.
        self._asked: set[str] = set()
        # Shards of renders read so far; the renders this run used, and made.
        self._renders: dict[str, dict[str, Entry]] = {}
        self._used: dict[str, Entry] = {}
        self._made: set[str] = set()
        # Shards of texts read so far, and the texts of renders made this run.
        self._texts: dict[str, dict[str, Texts]] = {}
        self._fresh: dict[str, Texts] = {}
        self._dirty: set[str] = set()
        # What lookups gave this run: the keys of job identities and of renders, and
        # the files the problems of those renders name (kgen.pipeline.fresh.doubt).
        self.served: set[str] = set()
        self.named: set[str] = set()

    def identity(self, key: str) -> Identity | None:
        self._asked.add(key)
        found = None if _distrust else self.identities.get(key)
        if found is None or not identity_ok(found):
            return None  # none, or not of kgen's shape (kgen.pipeline.cache_shapes)
        self.served.add(key)
        return found

    def remember_identity(self, key: str, identity: Identity) -> None:
        self._asked.add(key)
        if self.folder is not None and self.identities.get(key) != identity:
            self.identities[key] = identity
            self._dirty.add("identities")

    def render(self, key: str, *, emitted: bool, texts: bool = True) -> Entry | None:
        """A render's entry; with `emitted`, only one made with its files, and their
        texts unless `texts` is False (each file's text is "" then: its digest says
        what it is)."""
        if self.folder is None or _distrust:
            return None
        entry = self._render_shard(shard_of(key)).get(key)
        if entry is None or not entry_ok(entry):
            return None  # none, or not what kgen writes there
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
        self.served.add(key)
        self.named.update(p.file for p in entry[1] if p.file is not None)
        return full

    def texts(self, key: str) -> Texts | None:
        """The texts of the files of the render at `key`, if the cache has them."""
        found = None if self.folder is None or _distrust else self._shard(key).get(key)
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
        self._made.add(key)
        self._dirty.add("renders")
        self.served.discard(key)

    def save(self, *, whole: bool) -> None:
        """Write what changed; after a run over everything, only the renders and job
        identities it used."""
        if self.folder is not None and whole:
            self._forget_identities()
        if self.folder is None or not self._dirty:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            if "identities" in self._dirty:
                self._write("identities", self.identities)
            if "renders" in self._dirty:
                self._save_texts(self._save_renders(whole=whole))
            elif "texts" in self._dirty:
                self._save_texts(None)
        except OSError:
            pass  # a cache that cannot be written only costs time
        self._dirty.clear()

    def _forget_identities(self) -> None:
        """The identities of job files a run over everything did not read (an edited
        job's old bytes, a job deleted) go, when the table is written anyway or they
        are a quarter of it: without this, each edit left one behind for ever."""
        stale = self.identities.keys() - self._asked
        if stale and (
            "identities" in self._dirty or len(stale) * 4 >= len(self.identities)
        ):
            for key in stale:
                del self.identities[key]
            self._dirty.add("identities")

    def _save_renders(self, *, whole: bool) -> set[str] | None:
        """The shards renders made this run go into; after a run over everything, each
        rewritten one (and one half unused) keeps only the renders the run used. The
        keys the shards read now hold, after a run over everything."""
        used: dict[str, dict[str, Entry]] = {}
        for key, entry in self._used.items():
            used.setdefault(shard_of(key), {})[key] = entry
        made = {shard_of(key) for key in self._made}
        live: set[str] = set()
        for shard in sorted(made | (self._renders.keys() if whole else set())):
            table = self._render_shard(shard)
            mine = used.get(shard, {})
            if whole:
                unused = len(table.keys() - mine.keys())
                if shard in made or unused * 2 > len(table):
                    table = mine
            else:
                table = {**table, **mine}
            if shard in made or table is not self._renders[shard]:
                self._write(f"renders-{shard}", table)
                self._renders[shard] = table
            live |= table.keys()
        self._made.clear()
        return live if whole else None

    def _render_shard(self, shard: str) -> dict[str, Entry]:
        table = self._renders.get(shard)
        if table is None:
            table = self._renders[shard] = self._read(f"renders-{shard}")
        return table

    def _save_texts(self, kept: set[str] | None) -> None:
        """The shards new texts go into, and those read this run (after a run over
        everything, without the texts of renders it did not use)."""
        by_shard: dict[str, dict[str, Texts]] = {}  # each key's shard found once
        for key, texts in self._fresh.items():
            by_shard.setdefault(shard_of(key), {})[key] = texts
        for shard in sorted(by_shard.keys() | self._texts.keys()):
            table = self._texts.get(shard)
            if table is None:
                table = self._read(f"texts-{shard}")
            fresh = by_shard.get(shard, {})
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
        shard = shard_of(key)
        if shard not in self._texts:
            self._texts[shard] = self._read(f"texts-{shard}")
        return self._texts[shard]

    def _read(self, name: str) -> dict[str, Any]:
        if self.folder is None:
            return {}
        handle = open_cache_file(self.folder / f"{name}.pickle", MAX_TABLE_BYTES)
        if handle is None:
            return {}
        try:
            with handle:
                salt, table = PlainUnpickler(handle, _ALLOWED, "cache data").load()
        except Exception:
            return {}
        return table if salt == code_digest() and isinstance(table, dict) else {}

    def _write(self, name: str, table: dict[str, Any]) -> None:
        assert self.folder is not None
        path = self.folder / f"{name}.pickle"
        partial = path.with_name(f".{name}.{os.getpid()}.tmp")
        try:
            with open(partial, "xb") as handle:  # never through what is there
                pickle.dump((code_digest(), table), handle, protocol=5)
            os.replace(partial, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise
