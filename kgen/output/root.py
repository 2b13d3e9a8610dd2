"""Where kgen.yaml `output:` (and `argocd.output`, `flux.output`) may point: a folder of kgen's own.

kgen replaces the output root whole (kgen.output.atomic), so an output that is, holds or lies
inside one of the project's inputs (kgen.yaml, the jobs or overlays folder, a CRD, .git,
the argocd or schemas folder) would displace it, and an existing file there would be
swapped out for a folder. Both are refused at `output:` before anything is touched; so
is a link, or anything but a folder, on the way to the output root. `kgen argocd`
writes its files into `argocd.output` (and `kgen flux` into `flux.output`), so that may
not be an input or kgen's output root either.
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Iterator
from pathlib import Path

from kgen.errors import DataPath, Problem
from kgen.load.jobs import located
from kgen.load.project import Project
from kgen.output.safe_paths import Refused, describe
from kgen.output.tree_problems import refused_folder
from kgen.spec.project import PROJECT_FILE

Identity = tuple[int, int]
_HINT = "set output: to a folder of kgen's own, apart from the project's inputs"
_ARGOCD = "the argocd folder"
_FLUX = "the flux folder"


def output_problems(
    project: Project, *, extra_crds: tuple[str, ...] = ()
) -> list[Problem]:
    """Why the project's output root cannot be written, if it cannot."""
    output = project.spec.output
    try:
        on_the_way = _components(project.root, output)
    except Refused as exc:
        return [refused_folder(exc, output)]
    except OSError as exc:
        return [located(_unusable(output, exc, ("output",)), project.doc)]
    inputs = _inputs(project, extra_crds)
    problems = [
        _conflict(f"output '{output}'", clash, "kgen replaces its output folder whole")
        for clash in _conflicts(project.root, output, inputs, on_the_way)
    ]
    problems += [
        _staging_name(output, name, what, _where(project, name))
        for name, what in _staged(output, inputs)
    ]
    complete = len(on_the_way) == len(output.split("/"))
    found = on_the_way[-1][1] if complete else None
    if not problems and found is not None and not stat.S_ISDIR(found.st_mode):
        if ("output",) not in project.doc.positions:  # the default: show the path
            return [refused_folder(Refused(output, describe(found.st_mode)), output)]
        problems.append(_not_a_folder(output, describe(found.st_mode)))
    return [located(problem, project.doc) for problem in problems]


def argocd_problems(
    project: Project, *, extra_crds: tuple[str, ...] = ()
) -> list[Problem]:
    """Why `kgen argocd` may not write into `argocd.output`, if it may not."""
    if project.spec.argocd is None:
        return []
    return _owned_problems(project, project.spec.argocd.output, "argocd", extra_crds)


def flux_problems(
    project: Project, *, extra_crds: tuple[str, ...] = ()
) -> list[Problem]:
    """Why `kgen flux` may not write into `flux.output`, if it may not."""
    if project.spec.flux is None:
        return []
    return _owned_problems(project, project.spec.flux.output, "flux", extra_crds)


def _owned_problems(
    project: Project, folder: str, section: str, extra_crds: tuple[str, ...]
) -> list[Problem]:
    mine = _ARGOCD if section == "argocd" else _FLUX
    inputs = [(n, w) for n, w in _inputs(project, extra_crds) if w != mine]
    if folder != project.spec.output:  # the same clash: output_problems says so
        inputs.append((project.spec.output, "the output folder"))
    try:
        on_the_way = _components(project.root, folder)
    except (Refused, OSError):
        on_the_way = []  # the command says so, and writes nothing through it
    return [
        located(
            _conflict(
                f"{section} output '{folder}'",
                clash,
                f"kgen {section} writes its files into it",
                path=(section, "output"),
                hint=f"set {section}.output to a folder of its own, apart from the inputs and the output",
            ),
            project.doc,
        )
        for clash in _conflicts(project.root, folder, inputs, on_the_way)
    ]


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


def _inputs(project: Project, extra_crds: tuple[str, ...]) -> list[tuple[str, str]]:
    spec = project.spec
    inputs = [
        (PROJECT_FILE, "the project file"),
        (spec.jobs, "the jobs folder"),
        (spec.overlays, "the overlays folder"),
        (".git", "git's folder"),
        ("schemas", "the schemas folder"),
    ]
    # `kgen argocd` writes argocd/ by default, with or without an argocd: section.
    argocd = "argocd" if spec.argocd is None else spec.argocd.output
    inputs.append((argocd, _ARGOCD))
    if spec.flux is not None:
        inputs.append((spec.flux.output, _FLUX))
    return inputs + [(crd, "the CRD file") for crd in (*spec.crds, *extra_crds)]


def _conflicts(
    root: Path,
    target: str,
    inputs: list[tuple[str, str]],
    on_the_way: list[tuple[str, os.stat_result]],
) -> Iterator[str]:
    """How `target` clashes with each input it clashes with: 'is the jobs folder jobs'."""
    ours = [(s.st_dev, s.st_ino) for _, s in on_the_way]
    complete = len(on_the_way) == len(target.split("/"))
    for name, what in inputs:
        relation = _relation(target, posixpath.normpath(name))
        if relation is None:
            relation = _same_place(root, name, ours, complete=complete)
        if relation is not None:
            yield f"{relation} {what} {name}"


def _staged(output: str, inputs: list[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """The inputs under the names kgen keeps for its lock and staging folders beside
    the output root (`.<output>.kgen-*`, kgen.output.atomic): recovery would remove
    them as a killed build's leftovers."""
    parent, _, name = output.rpartition("/")
    prefix = f"{parent}/.{name}.kgen-" if parent else f".{name}.kgen-"
    for path, what in inputs:
        if posixpath.normpath(path).startswith(prefix):
            yield path, what


def _where(project: Project, name: str) -> DataPath:
    """Where kgen.yaml names input `name` (`output:` when it does not: a default)."""
    spec = project.spec
    candidates: list[tuple[DataPath, str | None]] = [
        (("jobs",), spec.jobs),
        (("overlays",), spec.overlays),
        (("argocd", "output"), spec.argocd.output if spec.argocd else None),
        *((("crds", i), crd) for i, crd in enumerate(spec.crds)),
    ]
    for path, value in candidates:
        if value == name and path in project.doc.positions:
            return path
    return ("output",)


def _staging_name(output: str, name: str, what: str, where: DataPath) -> Problem:
    return Problem(
        f"{what} {name} has a name kgen keeps for the output folder's staging"
        f" folders and lock ('.{output.rpartition('/')[2]}.kgen-...'), which a build"
        " removes",
        "invalid-value",
        path=where,
        hint="rename that folder, or choose another output in kgen.yaml",
    )


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
        mine = (target.st_dev, target.st_ino)
        if complete and mine == ours[-1]:
            return "is"
        if mine in ours:
            return "lies inside"
        if complete and _inside(root, name, ours[-1]):
            return "holds"
    except OSError:
        pass  # an input kgen cannot reach is reported where it is read
    return None


def _inside(root: Path, name: str, folder: Identity) -> bool:
    """Whether input `name`, links resolved, lies inside `folder` (within the project)."""
    top = Path(os.path.realpath(root))
    for parent in Path(os.path.realpath(root / name)).parents:
        if parent == top or top not in parent.parents:
            return False
        status = os.stat(parent)
        if (status.st_dev, status.st_ino) == folder:
            return True
    return False


def _conflict(
    setting: str,
    clash: str,
    why: str,
    *,
    path: DataPath = ("output",),
    hint: str = _HINT,
) -> Problem:
    return Problem(
        f"{setting} {clash}: {why}, so it would displace it",
        "invalid-value",
        path=path,
        hint=hint,
    )


def _not_a_folder(output: str, kind: str) -> Problem:
    return Problem(
        f"output '{output}' is {kind}, not a folder: kgen replaces its output folder"
        " whole, so it would displace it",
        "invalid-value",
        path=("output",),
        hint=_HINT,
    )


def _unusable(output: str, exc: OSError, where: DataPath) -> Problem:
    return Problem(
        f"output '{output}' cannot be used: {exc.strerror or exc}",
        "invalid-value",
        path=where,
        hint=_HINT,
    )
