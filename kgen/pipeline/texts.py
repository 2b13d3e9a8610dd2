"""The texts of files a run gave as digests (a render from the cache, run with
`texts=False`), for the few a build must write: a build after editing one spec holds
no text but those of the renders it made, and of files someone changed by hand.

Never the cache's texts: what a build writes is what it rendered now, as it checked
the renders behind those files against the cache (kgen.pipeline.fresh), or rendered
again here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kgen.load.project import Project
from kgen.pipeline.keys import render_key
from kgen.pipeline.records import Render, RunResult
from kgen.pipeline.run import run


def texts_for(
    project: Project, result: RunResult, output: str, fresh: Mapping[str, str]
) -> Callable[[list[str]], dict[str, str]]:
    """A function from output paths (`<output>/<env>/<file>`) of `result`'s renders to
    their texts, header included, as kgen.output.tree lays them out: from `fresh`
    (rendered again this run), else rendered again now."""
    # Made on the first call: a build after editing one spec asks for none (the
    # renders it made are staged), and at 10,000 jobs this table is 18 MB.
    owners: dict[str, tuple[Render, int]] = {}

    def texts(paths: list[str]) -> dict[str, str]:
        if not owners:
            for render in result.renders:
                for index, out in enumerate(render.facts.files):
                    # The first render of a path owns it, as in the tree.
                    owners.setdefault(
                        f"{output}/{render.env.name}/{out.filename}", (render, index)
                    )
        found: dict[str, str] = {}
        missing = []
        for path in paths:
            if path in fresh:
                found[path] = fresh[path]
            else:
                missing.append(path)
        if missing:
            pairs = {(owners[p][0].env.name, owners[p][0].job.file) for p in missing}
            found |= _rendered(project, pairs, output, missing)
        return found

    return texts


def _rendered(
    project: Project, pairs: set[tuple[str, str]], output: str, paths: list[str]
) -> dict[str, str]:
    """The texts at `paths`, rendered again: the (environment, job file) pairs; the
    cache keeps them for the next build."""
    again = run(project, select=lambda env, file: (env, file) in pairs, emit=True)
    for render in again.renders:
        key = render_key(project, render.env.name, render.job)
        project.cache.remember_texts(key, tuple(f.text for f in render.facts.files))
    project.cache.save(whole=False)
    texts = {
        f"{output}/{render.env.name}/{out.filename}": out.text
        for render in again.renders
        for out in render.facts.files
    }
    return {path: texts[path] for path in paths}
