"""Where kgen.yaml `output:` may point: a folder of kgen's own, inside the project.

kgen replaces the output root whole (kgen.atomic), so an output that is, holds or lies
inside one of the project's inputs (kgen.yaml, the jobs or overlays folder, a CRD, .git,
the argocd or schemas folder) would displace it, and an existing file there would be
swapped out for a folder. Both are refused at `output:` before anything is touched; so
is a link, or anything but a folder, on the way to the output root.
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Iterator
from pathlib import Path

from kgen.discover import Project, located
from kgen.errors import Problem
from kgen.index import refused_folder
from kgen.project import PROJECT_FILE
from kgen.safe_paths import Refused, describe

Identity = tuple[int, int]


def output_problems(
    project: Project, *, extra_crds: tuple[str, ...] = ()
) -> list[Problem]:
    """Why the project's output root cannot be written, if it cannot."""
    output = project.spec.output
    try:
        on_the_way = _components(project.root, output)
    except Refused as exc:
        return [refused_folder(exc, output)]
    found = on_the_way[-1][1] if len(on_the_way) == len(output.split("/")) else None
    problems = list(_conflicts(project, extra_crds, on_the_way))
    if not problems and found is not None and not stat.S_ISDIR(found.st_mode):
        if ("output",) not in project.doc.positions:  # the default: show the path
            return [refused_folder(Refused(output, describe(found.st_mode)), output)]
        problems.append(_not_a_folder(output, describe(found.st_mode)))
    return [located(problem, project.doc) for problem in problems]


def _components(root: Path, output: str) -> list[tuple[str, os.stat_result]]:
    """Each existing component of `output`, with its lstat; Refused for a link on the
    way, or for anything but a folder before the last component."""
    found = []
    parts = output.split("/")
    for count in range(1, len(parts) + 1):
        path = "/".join(parts[:count])
        try:
            status = os.lstat(root / path)
        except (FileNotFoundError, NotADirectoryError):
            break
        last = count == len(parts)
        if stat.S_ISLNK(status.st_mode) or not (last or stat.S_ISDIR(status.st_mode)):
            raise Refused(path, describe(status.st_mode))
        found.append((path, status))
    return found


def _inputs(project: Project, extra_crds: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    spec = project.spec
    yield PROJECT_FILE, "the project file"
    yield spec.jobs, "the jobs folder"
    yield spec.overlays, "the overlays folder"
    yield ".git", "git's folder"
    yield "schemas", "the schemas folder"
    if spec.argocd is not None:
        yield spec.argocd.output, "the argocd folder"
    for crd in (*spec.crds, *extra_crds):
        yield crd, "the CRD file"


def _conflicts(
    project: Project,
    extra_crds: tuple[str, ...],
    on_the_way: list[tuple[str, os.stat_result]],
) -> Iterator[Problem]:
    output = project.spec.output
    ours = [(s.st_dev, s.st_ino) for _, s in on_the_way]
    complete = len(on_the_way) == len(output.split("/"))
    for name, what in _inputs(project, extra_crds):
        relation = _relation(output, posixpath.normpath(name))
        if relation is None:
            relation = _same_place(project.root, name, ours, complete=complete)
        if relation is not None:
            yield _conflict(output, relation, what, name)


def _relation(output: str, name: str) -> str | None:
    if output == name:
        return "is"
    if name.startswith(output + "/"):
        return "holds"
    if output.startswith(name + "/"):
        return "lies inside"
    return None


def _same_place(
    root: Path, name: str, ours: list[Identity], *, complete: bool
) -> str | None:
    """The relation of an input and the output root that names alone do not show: a
    different spelling of one folder (case-insensitive filesystems) or an input that is
    a link to it."""
    try:
        target = os.stat(root / name)
    except OSError:
        return None
    mine = (target.st_dev, target.st_ino)
    if complete and mine == ours[-1]:
        return "is"
    if mine in ours:
        return "lies inside"
    if not complete:
        return None
    top = Path(os.path.realpath(root))
    for folder in Path(os.path.realpath(root / name)).parents:
        if folder == top or top not in folder.parents:
            return None
        status = os.stat(folder)
        if (status.st_dev, status.st_ino) == ours[-1]:
            return "holds"
    return None


def _conflict(output: str, relation: str, what: str, name: str) -> Problem:
    return Problem(
        f"output '{output}' {relation} {what} {name}: kgen replaces its output folder"
        " whole, so it would displace it",
        "invalid-value",
        path=("output",),
        hint="give kgen a folder of its own, e.g. output: manifests",
    )


def _not_a_folder(output: str, kind: str) -> Problem:
    return Problem(
        f"output '{output}' is {kind}, not a folder: kgen replaces its output folder"
        " whole, so it would displace it",
        "invalid-value",
        path=("output",),
        hint="give kgen a folder of its own, e.g. output: manifests",
    )
