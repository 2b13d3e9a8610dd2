"""Find and load everything a run needs: kgen.yaml, its overlays and the job specs.

Each file is read once, whatever number of environments use it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgen.cache import Cache, Identity, cache_folder, code_digest, digest
from kgen.crds import load_crd_schemas
from kgen.errors import DataPath, KgenError, Problem
from kgen.loader import Document, load_bytes, load_file, read_bounded
from kgen.models.base import FRAMEWORKS
from kgen.parallel import map_units
from kgen.project import PROJECT_FILE, OverlaySpec, ProjectSpec
from kgen.validate import validate_model

JOB_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Overlay:
    name: str
    doc: Document
    spec: OverlaySpec


class JobSource:
    """A job spec file: its name, framework and labels (what selectors read) at once, its
    document (with `name` defaulted to the file stem) parsed on first use.

    Runs that find a job's renders in the cache never parse it; they know it from the
    identity recorded when it was last parsed, keyed by its bytes.
    """

    def __init__(
        self,
        file: str,
        identity: Identity,
        *,
        doc: Document | None = None,
        raw: bytes = b"",
        key: str = "",
    ) -> None:
        self.file = file
        self.name, self.framework, labels = identity
        self.identity = identity
        self.key = key
        self.selected = {"name": self.name, "framework": self.framework}
        if labels is not None:
            self.selected["labels"] = labels
        self._doc = doc
        self._data: Any = None
        self._raw = raw

    def __getstate__(self) -> dict[str, Any]:
        # Between processes a job travels as its data and bytes: the positions are
        # four fifths of a pickled document, and only a problem to locate needs them
        # (`doc` parses the bytes again then).
        return {**self.__dict__, "_doc": None, "_data": self.data}

    @property
    def data(self) -> Any:
        """The spec as loaded (`doc.data`), without needing its positions."""
        if self._doc is None and self._data is not None:
            return self._data
        return self.doc.data

    @property
    def doc(self) -> Document:
        if self._doc is None:
            doc, problems = load_bytes(self._raw, self.file)
            if doc is None or problems:  # pragma: no cover - it parsed before
                raise KgenError(*problems)
            doc.data.setdefault("name", Path(self.file).stem)
            self._doc = doc
        return self._doc


@dataclass
class Project:
    root: Path
    doc: Document
    spec: ProjectSpec
    overlays: dict[str, Overlay]
    jobs: list[JobSource]
    # User CRD validators by (apiVersion, kind), from kgen.yaml `crds:` and `--crd`.
    crds: dict[tuple[str, str], Any] = field(default_factory=dict)
    cache: Cache = field(default_factory=lambda: Cache(None))
    # A digest of every input but the job specs, and of kgen itself (see kgen.cache).
    inputs: str = ""


def outside(root: Path, path: Path) -> bool:
    """Whether `path` (after links) lies outside the project: kgen never reads there."""
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return True
    return False


def _not_a_file(display: str) -> Problem:
    return Problem(
        f"{display} is not a file",
        "io",
        file=display,
        hint="the jobs folder holds job spec files; move or rename this entry",
    )


def _escapes(display: str) -> Problem:
    return Problem(
        f"{display} links to a file outside the project; kgen reads only files inside it",
        "io",
        file=display,
        hint="copy the file into the project instead of linking to it",
    )


def located(problem: Problem, doc: Document) -> Problem:
    """Give a problem found in `doc` (by data path) its file:line:col."""
    if problem.file is not None and problem.line is not None:
        return problem
    origin = doc.origin(problem.path)
    if problem.at_key:
        return problem.at(origin.file, origin.key_line, origin.key_column)
    return problem.at(origin.file, origin.line, origin.column)


def load_project(
    root: Path, *, extra_crds: tuple[str, ...] = (), use_cache: bool = True
) -> tuple[Project | None, list[Problem]]:
    """Load kgen.yaml, the overlays it names and every job spec; collect all problems."""
    path = root / PROJECT_FILE
    if not path.is_file():
        raise KgenError(
            Problem(
                f"no {PROJECT_FILE} in {root}",
                "no-project",
                file=PROJECT_FILE,
                hint="run kgen in the folder that holds kgen.yaml, or pass --project DIR",
            )
        )
    doc, problems = _load_mapping(path, PROJECT_FILE, what="the project file")
    if doc is None:
        return None, problems
    spec, errors = validate_model(ProjectSpec, doc.data)
    problems += [located(p, doc) for p in errors]
    if spec is None:
        return None, problems
    overlays = _load_overlays(root, spec, doc, problems)
    store = Cache(cache_folder(root) if use_cache else None)
    jobs = _load_jobs(root, spec, doc, problems, store)
    crd_files = [*spec.crds, *extra_crds]
    crds, crd_problems = load_crd_schemas(root, crd_files)
    inputs = digest(
        code_digest(),
        *(_bytes(root / name) for name in [PROJECT_FILE, *crd_files]),
        *(
            part
            for o in overlays.values()
            for part in (o.name, _bytes(root / o.doc.file))
        ),
    )
    project = Project(root, doc, spec, overlays, jobs, crds, store, inputs)
    return project, problems + crd_problems


def _bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        return f"unreadable: {exc.strerror}".encode()


def _load_mapping(
    path: Path, display: str, *, what: str
) -> tuple[Document | None, list[Problem]]:
    doc, problems = load_file(path, display)
    if doc is None:
        return None, problems
    if not isinstance(doc.data, dict):
        return None, [_not_a_mapping(doc, display, what=what)]
    return doc, []


def _not_a_mapping(doc: Document, display: str, *, what: str) -> Problem:
    kinds = {list: "a list", str: "a string", bool: "a boolean"}
    shown = "empty" if doc.data is None else kinds.get(type(doc.data), "a number")
    return Problem(
        f"{what} must be a YAML mapping of keys to values, but it is {shown}",
        "not-a-mapping",
        file=display,
        line=1,
        column=1,
    )


def environment_overlay_path(doc: Document, env: str, index: int) -> DataPath:
    """Where the `index`th overlay of `env` sits, in the long or the shorthand form."""
    long_form: DataPath = ("environments", env, "overlays", index)
    return long_form if long_form in doc.positions else ("environments", env, index)


def _load_overlays(
    root: Path, spec: ProjectSpec, doc: Document, problems: list[Problem]
) -> dict[str, Overlay]:
    overlays: dict[str, Overlay] = {}
    broken: set[str] = set()
    for env_name, env in spec.environments.items():
        seen: set[str] = set()
        for index, name in enumerate(env.overlays):
            where = environment_overlay_path(doc, env_name, index)
            if name in seen:
                message = (
                    f"overlay '{name}' is listed twice in environment '{env_name}'"
                )
                problems.append(
                    located(Problem(message, "duplicate-overlay", path=where), doc)
                )
            seen.add(name)
            if name in overlays or name in broken:
                continue
            path = root / spec.overlays / f"{name}.yaml"
            if not path.is_file():
                problems.append(located(_no_overlay(root, spec, name, where), doc))
                continue
            if outside(root, path):
                problems.append(_escapes(f"{spec.overlays}/{name}.yaml"))
                broken.add(name)
                continue
            overlay = _load_overlay(
                path, f"{spec.overlays}/{name}.yaml", name, problems
            )
            if overlay is None:
                broken.add(name)
            else:
                overlays[name] = overlay
    return overlays


def _no_overlay(root: Path, spec: ProjectSpec, name: str, where: DataPath) -> Problem:
    folder = root / spec.overlays
    known = sorted(p.stem for p in folder.glob("*.yaml")) if folder.is_dir() else []
    return Problem(
        f"overlay '{name}' does not exist ({spec.overlays}/{name}.yaml)",
        "missing-overlay",
        path=where,
        hint=("known overlays: " + ", ".join(known))
        if known
        else f"create {spec.overlays}/{name}.yaml",
    )


def _load_overlay(
    path: Path, display: str, name: str, problems: list[Problem]
) -> Overlay | None:
    doc, errors = _load_mapping(path, display, what="an overlay")
    problems += errors
    if doc is None:
        return None
    overlay_spec, errors = validate_model(OverlaySpec, doc.data)
    problems += [located(p, doc) for p in errors]
    if overlay_spec is None:
        return None
    for key in ("name", "framework"):
        if overlay_spec.patch and key in overlay_spec.patch:
            problems.append(
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
    return Overlay(name, doc, overlay_spec)


def _load_jobs(
    root: Path,
    spec: ProjectSpec,
    project_doc: Document,
    problems: list[Problem],
    store: Cache,
) -> list[JobSource]:
    folder = root / spec.jobs
    if not folder.is_dir():
        message = f"the jobs folder '{spec.jobs}' does not exist"
        hint = f"create it and add a job spec, e.g. {spec.jobs}/train.yaml"
        problems.append(
            located(Problem(message, "no-jobs", path=("jobs",), hint=hint), project_doc)
        )
        return []
    # Entries, not paths: the folder listing already says which are links and files,
    # so only links need resolving (a thousand `resolve()` calls cost 0.1 s).
    folder_outside = outside(root, folder)
    with os.scandir(folder) as listing:
        entries = sorted(
            (e for e in listing if os.path.splitext(e.name)[1] in JOB_SUFFIXES),
            key=lambda e: e.name,
        )
    found: list[JobSource | None] = []
    to_parse: list[tuple[int, str, bytes, str]] = []
    for entry in entries:
        display = f"{spec.jobs}/{entry.name}"
        if folder_outside or (entry.is_symlink() and outside(root, Path(entry.path))):
            problems.append(_escapes(display))
            continue
        if not entry.is_file():
            problems.append(_not_a_file(display))
            continue
        raw, errors = read_bounded(entry.path, display)
        if raw is None:
            problems += errors
            continue
        key = digest(display, raw)
        identity = store.identity(key)
        if identity is None:
            to_parse.append((len(found), display, raw, key))
            found.append(None)
        else:
            found.append(JobSource(display, identity, raw=raw, key=key))
    for (index, _display, _raw, key), (job, errors) in zip(
        to_parse, map_units(_parse_job, to_parse), strict=True
    ):
        problems += errors
        if job is not None:
            job.key = key
            store.remember_identity(key, job.identity)
        found[index] = job
    jobs = []
    by_name: dict[str, JobSource] = {}
    for job in found:
        if job is None:
            continue
        if job.name in by_name:
            first = by_name[job.name]
            problems.append(
                located(
                    Problem(
                        f"job name '{job.name}' is also used by {first.file}",
                        "duplicate-job",
                        path=("name",),
                        hint="job names must be unique in a project",
                    ),
                    job.doc,
                )
            )
            continue
        by_name[job.name] = job
        jobs.append(job)
    return jobs


def _parse_job(
    item: tuple[int, str, bytes, str],
) -> tuple[JobSource | None, list[Problem]]:
    _index, display, raw, _key = item
    doc, errors = load_bytes(raw, display)
    if doc is None:
        return None, errors
    if not isinstance(doc.data, dict):
        return None, [_not_a_mapping(doc, display, what="a job spec")]
    data: dict[str, Any] = doc.data
    if "name" not in data:
        # A job is named after its file unless it says otherwise.
        data["name"] = Path(display).stem
    framework = data.get("framework")
    if framework not in FRAMEWORKS:
        if "framework" not in data:
            problem = Problem(
                "missing required key 'framework'",
                "missing-key",
                path=(),
                at_key=True,
                hint="framework: pytorch or framework: tensorflow",
            )
        else:
            problem = Problem(
                f"unknown framework {framework!r}",
                "invalid-value",
                path=("framework",),
                hint="use pytorch or tensorflow",
            )
        return None, [located(problem, doc)]
    name = data["name"]
    identity = (
        name if isinstance(name, str) else str(name),
        framework,
        data.get("labels"),
    )
    return JobSource(display, identity, doc=doc, raw=raw), []
