"""A build's texts written into its staged tree as the renders arrive, so that the run
holds only their digests (kgen.output.digests).

A build that held every text until it wrote them peaked at 700-850 MB at 10,000 jobs
in 4 environments (the texts are 250 MB, and the cache kept them again). The spool
opens a staging folder beside the output root (kgen.output.atomic, locked while in use)
on the first text and writes each file where the new tree will have it; the writer then
links in the files that did not come from a render and swaps the whole tree in, or
removes the staging folder: the outcome stays all or nothing.

A path belongs to the first render that makes it, as in kgen.output.tree (two jobs may
make the same claim): a later render's text for it is not written, a cached render's
(known only by its digest) reserves it. Where the output's parent folder does not exist
yet, nothing is staged before the build lock: the texts stay with the run, as before.
The run keeps the texts of the first renders, up to a bound, for the cache.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from kgen.output.atomic import Place, Staged, open_staging
from kgen.output.safe_paths import Refused, open_below, write_new
from kgen.pipeline.facts import Facts, OutFile
from kgen.pipeline.records import TextSink, without_texts

# Texts the run keeps beside the staged ones, for the cache, in characters (about
# 1,000 renders of the generated benchmark jobs): a small project keeps all, a larger
# one its first renders' and then only digests.
KEEP_FOR_CACHE = 8 << 20


class Spool:
    """The texts of one build's renders, staged beside `<root>/<output>`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.output = ""
        self.place: Place | None = None
        self.staged: Staged | None = None
        # Paths (`<output>/<env>/<file>`) whose text is in the staged tree.
        self.spooled: set[str] = set()
        # Why staging failed part way (a full disk): the build writes nothing then.
        self.error: OSError | None = None
        self._off = False
        # Files a render the cache gave (by digest) has, by environment: not staged,
        # not another's (the render's own names: 120,000 paths at 10,000 jobs are not
        # made again).
        self._reserved: dict[str, set[str]] = {}
        self._kept = 0
        self._folders: set[str] = set()

    def into(self, output: str) -> Spool:
        """This spool, for the output root `output` (kgen.yaml's, checked)."""
        self.output = output
        return self

    def __call__(self, env: str, facts: Facts) -> Facts:
        """Take a render's facts in run order: its texts staged, the facts without
        them (as they are, if nothing can be staged)."""
        if self._off:
            return facts
        reserved = self._reserved.setdefault(env, set())
        texts = []
        carried = False  # a text at all (4,000 renders, most from the cache, have none)
        for out in facts.files:
            if not out.text:  # a cached render's (whether staged before or not)
                reserved.add(out.filename)
                continue
            carried = True
            if (
                out.filename not in reserved
                and f"{self.output}/{env}/{out.filename}" not in self.spooled
            ):
                texts.append(out)
        if not carried:
            return facts  # nothing to stage or to keep
        if texts and not self._stage(env, texts):
            return facts
        size = sum(len(out.text) for out in facts.files)
        if size == 0 or self._kept + size <= KEEP_FOR_CACHE:
            # A small build's texts stay for the cache (kgen.pipeline.cache), which
            # gives them to the next build that finds a file changed by hand.
            self._kept += size
            return facts
        return without_texts(facts)

    def _stage(self, env: str, texts: list[OutFile]) -> bool:
        if self.staged is None and not self._open():
            return False
        if self.error is not None:
            return True  # the build fails; the texts are not needed
        assert self.staged is not None
        try:
            if env not in self._folders:
                os.mkdir(env, 0o777, dir_fd=self.staged.tree)
                self._folders.add(env)
            for out in texts:
                write_new(
                    f"{env}/{out.filename}", out.text.encode(), folder=self.staged.tree
                )
                self.spooled.add(sys.intern(f"{self.output}/{env}/{out.filename}"))
        except OSError as exc:
            self.error = exc
        return True

    def _open(self) -> bool:
        folder, _, name = self.output.rpartition("/")
        try:
            parent = open_below(self.root, folder)
        except (OSError, Refused):
            self._off = True  # not there yet: the writer makes it, under its lock
            return False
        place = Place(parent, name, folder)
        try:
            self.staged = open_staging(place)
        except (OSError, Refused):
            os.close(parent)
            self._off = True
            return False
        self.place = place
        return True

    def close(self) -> None:
        """Remove what is still staged (nothing, after a swap) and let go."""
        if self.place is None or self.staged is None:
            return
        try:
            self.staged.close(self.place, remove=True)
        finally:
            os.close(self.place.parent)
            self.place = self.staged = None


def digests(output: str) -> TextSink:
    """For `build --check`: each render's files by their digests alone; nothing needs
    their texts, and the workers send none (kgen.pipeline.run, `wants_texts`)."""
    return _DIGESTS


class _Digests:
    wants_texts = False

    def __call__(self, env: str, facts: Facts) -> Facts:
        if not any(out.text for out in facts.files):
            return facts  # rendered without (kgen.pipeline.run), or from the cache
        return without_texts(facts)


_DIGESTS = _Digests()
