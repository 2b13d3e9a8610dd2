"""Turn rendered jobs into the output tree: one file per object, a kustomization per env.

Paths are relative to the project root and sorted; every text is a pure function of the
inputs, so two builds give the same bytes on any machine.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_left, insort
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from kgen.errors import Problem
from kgen.load.jobs import located
from kgen.output.digests import Digest, Expected
from kgen.output.emitter import dump_documents
from kgen.pipeline.facts import OutFile, file_header
from kgen.pipeline.records import Render, RunResult

if TYPE_CHECKING:
    from kgen.resources.check import TeamObject

KUSTOMIZATION = "kustomization.yaml"


def build_tree(
    result: RunResult, *, output: str, objects: Sequence[TeamObject] = ()
) -> tuple[dict[str, str], list[Problem]]:
    """The files of every environment and their kustomizations; the team's own objects
    (resources/) beside the jobs', a clash with one of them a problem."""
    expected, problems = expected_tree(result, output=output, objects=objects)
    files = {path: text for path, text in expected.items() if isinstance(text, str)}
    if len(files) != len(expected):  # pragma: no cover - a run with texts=False
        raise RuntimeError("the run kept digests, not the texts to write")
    return files, problems


def expected_tree(
    result: RunResult, *, output: str, objects: Sequence[TeamObject] = ()
) -> tuple[Expected, list[Problem]]:
    """build_tree, with the files of renders the cache gave without their texts (a run
    with `texts=False`) as their digests, for `build --check`."""
    files: Expected = {}
    # Who made each path first: worked out only when a path is made twice (rare).
    owners: dict[str, tuple[str, OutFile]] | None = None
    conflicts: dict[Problem, list[str]] = {}
    intern, new = sys.intern, tuple.__new__
    for render in result.renders:
        header = ""  # the render's files' header, made once for all of them
        folder = f"{output}/{render.env.name}/"
        for out in render.facts.files:
            # Interned: the scan of the tree, its index and the record of it
            # (kgen.output.stat_record) name the same paths, and share these strings.
            path = intern(folder + out.filename)
            if path in files:
                # Two jobs may share a claim they both create, if they agree on it.
                owners = owners or _owners(result, output)
                first, earlier = owners[path]
                if earlier.digest != out.digest:
                    conflict = _conflict(out, render, first)
                    conflicts.setdefault(conflict, []).append(render.env.name)
                continue
            # The text as the render made it, header included: shared, not copied.
            if out.text:
                files[path] = out.text
                continue
            if not header:
                header = file_header(render.job.file, render.env.name, render.overlays)
            # Made as a plain tuple is (half the time of the class's own __new__).
            files[path] = new(Digest, (header, out.digest, out.size))
    # Each says its environments already.
    team = _team_objects(result, output, objects, files)
    # Sorted once: an environment's files are one run of the paths (12,000 at 1,000
    # jobs), found by bisection rather than by a pass over all of them for each.
    paths = sorted(files)
    for env in result.environments:
        prefix = f"{output}/{env.name}/"
        start = bisect_left(paths, prefix)
        end = bisect_left(paths, prefix[:-1] + _AFTER_SLASH, start)
        resources = [p[len(prefix) :] for p in paths[start:end]]
        files[prefix + KUSTOMIZATION] = _kustomization(env.name, resources)
        insort(paths, prefix + KUSTOMIZATION)
    problems = [
        replace(p, context=f"environments {', '.join(envs)}")
        for p, envs in conflicts.items()
    ]
    return {path: files[path] for path in paths}, problems + team


def _owners(result: RunResult, output: str) -> dict[str, tuple[str, OutFile]]:
    """Each path a render makes, with the job file and file of the first to make it."""
    owners: dict[str, tuple[str, OutFile]] = {}
    for render in result.renders:
        folder = f"{output}/{render.env.name}/"
        for out in render.facts.files:
            owners.setdefault(folder + out.filename, (render.job.file, out))
    return owners


# The character after "/": every path in a folder sorts before the folder's name with
# it in place of the slash.
_AFTER_SLASH = chr(ord("/") + 1)


def _team_objects(
    result: RunResult,
    output: str,
    objects: Sequence[TeamObject],
    files: Expected,
) -> list[Problem]:
    if not objects:
        return []
    from kgen.resources.clash import job_clashes
    from kgen.resources.emit import object_files

    clashes = job_clashes(result, objects)
    for env in result.environments:
        for name, (_, text) in object_files(objects, env.name, env.namespace).items():
            if (env.name, name) not in clashes.files:
                files[f"{output}/{env.name}/{name}"] = text
    return clashes.problems


def _conflict(out: OutFile, render: Render, first: str) -> Problem:
    problem = Problem(
        f"{out.kind} '{out.name}' is also produced by {first}, with other settings",
        "duplicate-object",
        path=out.spec_path,
        at_key=True,
        hint="objects two jobs share must be identical; define them the same way in both",
    )
    return located(problem, render.job.doc)


def _kustomization(env: str, resources: list[str]) -> str:
    header = f"# Generated by kgen for environment {env}; do not edit.\n"
    listed = "\n".join(resources)
    if (
        resources
        and listed.count("\n") == len(resources) - 1  # no name holds a line break
        and _PLAIN_FILES.fullmatch(listed)
    ):
        # The emitter's text, without a look-up a name: 3,000 names an environment.
        return f"{header}{_KUSTOMIZATION_HEAD}- {_NEXT.join(resources)}\n"
    body = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": resources,
    }
    return dump_documents([body], header=header)


_KUSTOMIZATION_HEAD = (
    "---\n"
    "apiVersion: kustomize.config.k8s.io/v1beta1\n"
    "kind: Kustomization\n"
    "resources:\n"
)
_NEXT = "\n- "
# File names, one a line, that the emitter writes plain (kgen.output.emitter._PLAIN):
# each ends in ".yaml", so none ends in ":" or is a word or number a reader takes
# for another type.
_FILE = r"-{0,2}[A-Za-z_/][A-Za-z0-9_./@+=~:,-]*\.yaml"
_PLAIN_FILES = re.compile(f"{_FILE}(?:\n{_FILE})*")
