"""The job spec files of a project: each read once (kgen.load.job_record: only if it
changed since a run last read it), parsed only when the cache does not already know
it, and named, typed and labelled for selectors.
"""

from __future__ import annotations

import os
import pickle
import stat
from functools import partial
from pathlib import Path
from typing import Any

from kgen.errors import KgenError, Problem
from kgen.flow_style import flow_style
from kgen.kinds import FRAMEWORKS
from kgen.load.document import Document
from kgen.load.files import unlistable
from kgen.load.job_record import JobFiles, read_jobs
from kgen.load.yaml import load_bytes
from kgen.pipeline.cache import Cache, Identity
from kgen.pipeline.parallel import MIN_PARALLEL, map_units
from kgen.spec.project import ProjectSpec


class JobSource:
    """A job spec file: its name, framework and labels (what selectors read) at once, its
    document (with `name` defaulted to the file stem) parsed on first use.

    Runs that find a job's renders in the cache never parse it; they know it from the
    identity recorded when it was last parsed, keyed by its bytes (None: see load_jobs).
    """

    def __init__(
        self,
        file: str,
        identity: Identity | None,
        *,
        doc: Document | None = None,
        raw: bytes = b"",
        key: str = "",
    ) -> None:
        self.file = file
        self.identify(identity)
        self.key = key
        self._doc = doc
        self._data: Any = None
        # The data pickled: what a job parsed among many keeps (see forget_positions).
        self._packed: bytes | None = None
        self.raw = raw

    def identify(self, identity: Identity | None) -> None:
        self.identity: Identity | None = identity
        self.name, self.framework, labels = identity or ("", "", None)
        self.selected = {"name": self.name, "framework": self.framework}
        if labels is not None:
            self.selected["labels"] = labels

    def __getstate__(self) -> dict[str, Any]:
        # Between processes a job travels as its data (pickled) and bytes: the
        # positions are four fifths of a pickled document, and only a problem to
        # locate needs them (`doc` parses the bytes again then).
        return {**self.__dict__, "_doc": None, "_data": None, "_packed": self.packed()}

    def packed(self) -> bytes:
        if self._packed is None:
            return pickle.dumps(self.data, protocol=5)
        return self._packed

    def forget_positions(self) -> None:
        """Keep the data alone, pickled; `doc` parses the bytes again if asked. As
        objects, the data of 10,000 jobs held 90 MB, and each render worker's reads
        copied the pages it touched (their reference counts); as bytes, a fifth."""
        if self._doc is not None or self._data is not None:
            self._packed, self._doc, self._data = self.packed(), None, None

    def own(self) -> JobSource:
        """This job, with its data its own: what a render worker parses or unpickles
        there stays with this copy, and goes when the worker is done with the job."""
        job = JobSource(
            self.file, self.identity, doc=self._doc, raw=self.raw, key=self.key
        )
        job._data = self._data
        if self._doc is None and self._data is None and self._packed is not None:
            job._data = pickle.loads(self._packed)
        return job

    @property
    def data(self) -> Any:
        """The spec as loaded (`doc.data`), without needing its positions."""
        if self._doc is None and self._data is not None:
            return self._data
        if self._doc is None and self._packed is not None:
            return pickle.loads(self._packed)  # a copy: see own()
        return self.doc.data

    @property
    def doc(self) -> Document:
        if self._doc is None:
            doc, problems = load_bytes(self.raw, self.file)
            if doc is None or problems:  # pragma: no cover - it parsed before
                raise KgenError(*problems)
            doc.data.setdefault("name", Path(self.file).stem)
            self._doc = doc
        return self._doc


def located(problem: Problem, doc: Document) -> Problem:
    """Give a problem found in `doc` (by data path) its file:line:col."""
    if problem.file is not None and problem.line is not None:
        return problem
    origin = doc.origin(problem.path)
    if problem.at_key:
        return problem.at(origin.file, origin.key_line, origin.key_column)
    return problem.at(origin.file, origin.line, origin.column)


def not_a_mapping(doc: Document, display: str, *, what: str) -> Problem:
    kinds = {list: "a list", str: "a string", bool: "a boolean"}
    shown = "empty" if doc.data is None else kinds.get(type(doc.data), "a number")
    return Problem(
        f"{what} must be a YAML mapping of keys to values, but it is {shown}",
        "not-a-mapping",
        file=display,
        line=1,
        column=1,
    )


def load_jobs(
    root: Path,
    spec: ProjectSpec,
    project_doc: Document,
    problems: list[Problem],
    store: Cache,
    *,
    defer: bool = False,
) -> list[JobSource]:
    """The jobs in order; `defer`: many new ones left for the run (kgen.pipeline.pending)."""
    try:
        is_folder = stat.S_ISDIR(os.stat(root / spec.jobs).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        is_folder = False
    except OSError as exc:  # unreadable on the way, a link loop
        problems.append(unlistable(spec.jobs, exc))
        return []
    if not is_folder:
        message = f"the jobs folder '{spec.jobs}' does not exist"
        hint = f"create it and add a job spec, e.g. {spec.jobs}/train.yaml"
        problems.append(
            located(Problem(message, "no-jobs", path=("jobs",), hint=hint), project_doc)
        )
        return []
    found: list[JobSource | None] = []
    to_parse: list[tuple[int, str, bytes, str]] = []
    # Each file unchanged since the last run as that run read it (kgen.load.job_record).
    record = JobFiles(store.folder)
    read = read_jobs(root, spec.jobs, problems, record)
    record.save()
    for display, raw, key in read:
        identity = store.identity(key)
        if identity is None:
            to_parse.append((len(found), display, raw, key))
            found.append(None)
        else:
            found.append(JobSource(display, identity, raw=raw, key=key))
    if defer and len(to_parse) >= MIN_PARALLEL:
        later = {
            i: JobSource(name, None, raw=raw, key=k) for i, name, raw, k in to_parse
        }
        return [job or later[i] for i, job in enumerate(found)]
    # Many jobs parsed in this process (one worker: a busy machine) keep no positions,
    # as a job from a worker comes (JobSource.__getstate__): they are four fifths of a
    # document (100 MB at 10,000 jobs), and only a problem to locate needs them (parsed
    # again then, which a small project, where problems are read, is spared).
    parse = partial(_parse_item, lean=len(to_parse) >= MIN_PARALLEL)
    for (index, _display, _raw, key), (job, errors) in zip(
        to_parse, map_units(parse, to_parse), strict=True
    ):
        problems += errors
        if job is not None and job.identity is not None:
            job.key = key
            store.remember_identity(key, job.identity)
        found[index] = job
    jobs = []
    by_name: dict[str, JobSource] = {}
    for job in found:
        if job is None:
            continue
        if job.name in by_name:
            problems.append(duplicate_job(job, by_name[job.name]))
            continue
        by_name[job.name] = job
        jobs.append(job)
    return jobs


def duplicate_job(job: JobSource, first: JobSource) -> Problem:
    message = f"job name '{job.name}' is also used by {first.file}"
    hint = "job names must be unique in a project"
    return located(
        Problem(message, "duplicate-job", path=("name",), hint=hint), job.doc
    )


def _parse_item(
    item: tuple[int, str, bytes, str], *, lean: bool
) -> tuple[JobSource | None, list[Problem]]:
    job, problems = parse_job(item[1], item[2])
    if lean and job is not None:
        job.forget_positions()
    return job, problems


def parse_job(display: str, raw: bytes) -> tuple[JobSource | None, list[Problem]]:
    """The job in `raw` with its document, named and typed; or its problems."""
    doc, errors = load_bytes(raw, display)
    if doc is None:
        return None, errors
    if not isinstance(doc.data, dict):
        return None, [not_a_mapping(doc, display, what="a job spec")]
    data: dict[str, Any] = doc.data
    if "name" not in data:
        # A job is named after its file unless it says otherwise.
        data["name"] = Path(display).stem
    framework = data.get("framework")
    if framework not in FRAMEWORKS:
        # The error path only: the other kinds' models are imported to check the keys.
        from kgen.load.unknown_framework import framework_hint, unknown_top_keys

        if "framework" not in data:
            problem = Problem(
                "missing required key 'framework'",
                "missing-key",
                path=(),
                at_key=True,
                hint=" or ".join(f"framework: {name}" for name in FRAMEWORKS),
            )
        else:
            problem = Problem(
                f"unknown framework {flow_style(framework)}",
                "invalid-value",
                path=("framework",),
                hint=framework_hint(framework),
            )
        others = unknown_top_keys(framework, data)
        return None, [located(p, doc) for p in (problem, *others)]
    name = data["name"]
    identity = (
        name if isinstance(name, str) else str(name),
        framework,
        data.get("labels"),
    )
    return JobSource(display, identity, doc=doc, raw=raw), []
