"""Find and load everything a run needs: kgen.yaml, its overlays and the job specs.

Each file is read once, whatever number of environments use it.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from kgen.check.stored import use_folder
from kgen.errors import DataPath, KgenError, Problem
from kgen.load.document import Document
from kgen.load.files import Reading, list_folder, outside, read_input
from kgen.load.jobs import JobSource, load_jobs, located, not_a_mapping
from kgen.load.yaml import load_bytes
from kgen.pipeline.cache import Cache, cache_folder, code_digest, digest
from kgen.spec.base import SpecModel
from kgen.spec.keys import known_hint
from kgen.spec.project import PROJECT_FILE, OverlaySpec, ProjectSpec
from kgen.spec.validate import MAX_PROBLEMS, validate_model

M = TypeVar("M", bound=SpecModel)


class Overlay(NamedTuple):
    name: str
    doc: Document
    spec: OverlaySpec


class Project:
    """A loaded project. A plain class: as a dataclass its methods were compiled from
    source at import (0.4 ms of every run)."""

    def __init__(
        self,
        root: Path,
        doc: Document,
        spec: ProjectSpec,
        overlays: dict[str, Overlay],
        jobs: list[JobSource],
        crds: dict[tuple[str, str], Any] | None = None,
        cache: Cache | None = None,
        inputs: str = "",
        jobs_incomplete: bool = False,
    ) -> None:
        self.root = root
        self.doc = doc
        self.spec = spec
        self.overlays = overlays
        self.jobs = jobs
        # User CRD validators by (apiVersion, kind), from kgen.yaml `crds:` and `--crd`.
        self.crds: dict[tuple[str, str], Any] = {} if crds is None else crds
        self.cache = Cache(None) if cache is None else cache
        # A digest of every input but the job specs, and of kgen itself (see
        # kgen.pipeline.cache).
        self.inputs = inputs
        # A job spec failed to load: what it would create (its claims) is unknown.
        self.jobs_incomplete = jobs_incomplete
        # The team's own objects (resources/), checked; kgen.resources.
        self.resources: list[Any] = []


def load_project(
    root: Path,
    *,
    extra_crds: tuple[str, ...] = (),
    use_cache: bool = True,
    defer_parse: bool = False,
    team_objects: bool = True,
) -> tuple[Project | None, list[Problem]]:
    """Load kgen.yaml, the overlays it names and every job spec; collect all problems.
    `defer_parse`: the run that follows parses many new jobs itself (load_jobs);
    `team_objects` False: the objects in resources/ are neither read nor checked (a run
    that reports none of their problems: kgen.commands.scope)."""
    folder = cache_folder(root) if use_cache else None
    # Output schemas and the spec models' core schemas are kept beside the renders.
    use_folder(folder)
    read: dict[str, bytes] = {}
    reading = _project_reading(root)
    doc, spec, problems = _validated(
        ProjectSpec,
        _load_mapping(reading, PROJECT_FILE, read, what="the project file"),
    )
    if doc is None or spec is None:
        return None, problems
    read[PROJECT_FILE] = reading.raw or b""
    overlays = _load_overlays(root, spec, doc, problems, read)
    store = Cache(folder)
    before = len(problems)
    jobs = load_jobs(root, spec, doc, problems, store, defer=defer_parse)
    incomplete = any(p.severity == "error" for p in problems[before:])
    crd_files = [*spec.crds, *extra_crds]
    crds: dict[tuple[str, str], Any] = {}
    crd_problems: list[Problem] = []
    if crd_files:
        # Imported here: only a project with CRDs needs their checks (and CEL).
        from kgen.check.crds import load_crd_schemas

        crds, crd_problems, crd_bytes = load_crd_schemas(root, crd_files)
        crd_problems = [_at_crds_entry(p, spec, doc) for p in crd_problems]
        read |= crd_bytes
    # The bytes as read: reading a file again could give others, or block. kgen's own
    # code salts the cache's keys; with the cache off no key is looked up anywhere, and
    # its sources are not read and hashed (kgen.pipeline.code: 1.2 MB).
    inputs = digest(
        code_digest() if folder is not None else "no cache",
        *(read.get(name, b"unreadable") for name in [PROJECT_FILE, *crd_files]),
        *(part for o in overlays.values() for part in (o.name, read[o.doc.file])),
    )
    project = Project(root, doc, spec, overlays, jobs, crds, store, inputs, incomplete)
    if not team_objects or not os.path.lexists(root / "resources"):
        return project, problems + crd_problems
    # Imported here: only a project with a resources/ folder needs it.
    from kgen.resources.load import load_resources

    project.resources, found = load_resources(project)
    return project, problems + crd_problems + found


def _at_crds_entry(problem: Problem, spec: ProjectSpec, doc: Document) -> Problem:
    """A CRD of kgen.yaml `crds:` that cannot be read (missing, a folder, a link out)
    is reported at the entry that names it: the file itself has no line to show."""
    name = problem.file
    if problem.line is not None or name not in spec.crds:
        return problem
    message = (
        problem.message if name in problem.message else f"{name}: {problem.message}"
    )
    where: DataPath = ("crds", spec.crds.index(name))
    return located(replace(problem, message=message, file=None, path=where), doc)


def _project_reading(root: Path) -> Reading:
    """kgen.yaml, read like every other input: a regular file inside the project."""
    path = root / PROJECT_FILE
    reading = read_input(path, PROJECT_FILE, root=root)
    if reading.missing or os.path.isdir(path):
        raise KgenError(
            Problem(
                f"no {PROJECT_FILE} in {root}",
                "no-project",
                file=PROJECT_FILE,
                hint="run kgen in the folder that holds kgen.yaml, or pass --project DIR",
            )
        )
    return reading


def _validated(
    model: type[M], parsed: tuple[Document | None, list[Problem]]
) -> tuple[Document | None, M | None, list[Problem]]:
    """A parsed file validated as `model`: its document, the model (None if invalid)
    and the problems, located. Every run, never from the cache folder: a model kept
    there would be whatever its writer pickled (CI restores it from runs nobody
    checked), and nothing short of validating the bytes again shows it is theirs; one
    kept with `output: ../outside` had a build write beside the project."""
    doc, problems = parsed
    if doc is None:
        return None, None, problems
    valid, errors = validate_model(model, doc.data)
    return doc, valid, [*problems, *(located(p, doc) for p in errors)]


def _load_mapping(
    reading: Reading, display: str, read: dict[str, bytes], *, what: str
) -> tuple[Document | None, list[Problem]]:
    if reading.raw is None:
        return None, [reading.problem] if reading.problem else []
    read[display] = reading.raw
    doc, problems = load_bytes(reading.raw, display)
    if doc is None:
        return None, problems
    if not isinstance(doc.data, dict):
        return None, [not_a_mapping(doc, display, what=what)]
    return doc, []


def environment_overlay_path(doc: Document, env: str, index: int) -> DataPath:
    """Where the `index`th overlay of `env` sits, in the long or the shorthand form."""
    long_form: DataPath = ("environments", env, "overlays", index)
    return long_form if long_form in doc.positions else ("environments", env, index)


def _load_overlays(
    root: Path,
    spec: ProjectSpec,
    doc: Document,
    problems: list[Problem],
    read: dict[str, bytes],
) -> dict[str, Overlay]:
    overlays: dict[str, Overlay] = {}
    broken: set[str] = set()
    files = _OverlayFiles(root, spec)
    found: list[Problem] = []
    entries = [
        (env_name, index, name)
        for env_name, env in spec.environments.items()
        for index, name in enumerate(env.overlays)
    ]
    seen: set[tuple[str, str]] = set()
    for done, (env_name, index, name) in enumerate(entries):
        if len(found) >= MAX_PROBLEMS:
            # One mistake repeated, or a file made to be slow: stop reading.
            found.append(_not_checked(len(entries) - done))
            break
        where = environment_overlay_path(doc, env_name, index)
        if (env_name, name) in seen:
            message = f"overlay '{name}' is listed twice in environment '{env_name}'"
            found.append(Problem(message, "duplicate-overlay", path=where))
        seen.add((env_name, name))
        if name in overlays or name in broken:
            continue
        reading = files.read(name)
        if reading.missing:
            found.append(files.missing(name, where))
            continue
        overlay = _load_overlay(reading, files.display(name), name, problems, read)
        if overlay is None:
            broken.add(name)
        else:
            overlays[name] = overlay
    problems += [located(p, doc) for p in found]
    return overlays


def _not_checked(count: int) -> Problem:
    return Problem(
        f"{count} more overlay names of the environments are not checked",
        "too-many-problems",
        path=("environments",),
        at_key=True,
        hint="fix the ones listed (often one mistake causes them all) and validate again",
    )


class _OverlayFiles:
    """The overlays folder: checked once to lie inside the project, listed once for
    hints however many overlays kgen.yaml names that do not exist."""

    def __init__(self, root: Path, spec: ProjectSpec) -> None:
        self.root, self.folder = root, spec.overlays
        self.inside = not outside(root, root / spec.overlays)
        self.known: list[str] | None = None

    def display(self, name: str) -> str:
        return f"{self.folder}/{name}.yaml"

    def read(self, name: str) -> Reading:
        display = self.display(name)
        return read_input(
            self.root / display, display, root=self.root, folder_inside=self.inside
        )

    def missing(self, name: str, where: DataPath) -> Problem:
        if self.known is None:
            entries, _ = list_folder(self.root / self.folder, self.folder, (".yaml",))
            self.known = [entry.name.removesuffix(".yaml") for entry in entries]
        return Problem(
            f"overlay '{name}' does not exist ({self.display(name)})",
            "missing-overlay",
            path=where,
            hint=known_hint(name, self.known, "overlays")
            if self.known
            else f"create {self.display(name)}",
        )


def _load_overlay(
    reading: Reading,
    display: str,
    name: str,
    problems: list[Problem],
    read: dict[str, bytes],
) -> Overlay | None:
    doc, overlay_spec, errors = _validated(
        OverlaySpec, _load_mapping(reading, display, read, what="an overlay")
    )
    for key in ("name", "framework"):
        if doc and overlay_spec and overlay_spec.patch and key in overlay_spec.patch:
            errors.append(
                located(
                    Problem(
                        f"an overlay cannot change a job's {key}",
                        "overlay-sets-identity",
                        path=("patch", key),
                        at_key=True,
                    ),
                    doc,
                )
            )
    problems += errors
    if doc is None or overlay_spec is None:
        return None
    read[display] = reading.raw or b""
    return Overlay(name, doc, overlay_spec)
