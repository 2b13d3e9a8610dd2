"""`kgen import`, why a job object is refused before it is read: no name a job spec
may have, an apiVersion no target of kgen's has, or a shape the API does not give it
(kgen.importer.shape); each at its line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgen.errors import DataPath, Problem
from kgen.importer.beside import env_name
from kgen.importer.difference import field_name
from kgen.importer.shape import Shape, first_wrong
from kgen.kinds.targets import TARGETS
from kgen.load.document import Document

# The rule a job spec's `name` is held to (DNS-1035), so an imported job is one kgen
# reads back.
from kgen.spec.fields import _dns1035 as job_name_problem


def refused(doc: Document, data: dict[str, Any]) -> Problem | None:
    """Why the job named by `data` cannot be imported by its name and apiVersion."""
    return _unnamed(doc, data) or _bad_api_version(doc, data)


def name_of(data: dict[str, Any]) -> str | None:
    """The object's metadata.name, if it is text."""
    meta = data.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else None


def _unnamed(doc: Document, data: dict[str, Any]) -> Problem | None:
    """Why the job cannot be named by its metadata.name: none, or one a job spec may
    not have (it names the spec's file, so '' or '..' would be a file kgen never
    reads, and 300 characters one the filesystem refuses)."""
    name = name_of(data)
    if name is None:
        message = f"cannot import a {data['kind']} without metadata.name"
        return located(doc, (), message)
    problem = job_name_problem(name)
    if problem is None:
        return None
    return located(
        doc,
        ("metadata", "name"),
        f"cannot import this {data['kind']}: {problem}",
        hint="a job's name is the name of its spec in jobs/; rename the object",
    )


def _bad_api_version(doc: Document, data: dict[str, Any]) -> Problem | None:
    """Why the job's apiVersion names no API target kgen renders, if it does not: the
    target becomes an overlay, named after it, that sets it."""
    version = data.get("apiVersion")
    known = sorted({target.api_version for target in TARGETS.values()})
    if version in known:
        return None
    if "apiVersion" not in data:
        why = "it has no apiVersion"
    elif isinstance(version, str):
        why = f"its apiVersion '{version}' is not one kgen renders"
    else:
        why = "its apiVersion is not a string"
    return located(
        doc,
        ("apiVersion",) if "apiVersion" in data else (),
        f"cannot import this {data['kind']}: {why}",
        hint=f"kgen renders {', '.join(known)}",
    )


def wrong_shape(doc: Document, shape: Shape) -> Problem | None:
    """The first place of `doc` that does not have the shape import reads."""
    wrong = first_wrong(doc.data, shape)
    if wrong is None:
        return None
    named = field_name(doc.data, wrong.named) if wrong.named else "the object"
    message = f"cannot import this {doc.data['kind']}: {named} {wrong.says}"
    return located(doc, wrong.at, message)


def located(
    doc: Document, path: DataPath, message: str, hint: str | None = None
) -> Problem:
    """Why import refuses `doc`, at the value of `path`."""
    return doc.problem_at(path, message, "import-unsupported", hint=hint)


def taken(
    doc: Document, name: str, named: Mapping[tuple[str, str], str]
) -> Problem | None:
    """Why `doc`, imported as job `name`, cannot be: a job of that name was imported
    from a file of its environment already (its folder, kgen.importer.beside; `named`
    holds the first file of each environment and job name), and an environment
    renders one job of a name. Two runs of one job (`<name>-<runId>`, each labelled
    kgen.io/job: <name>) are such a pair."""
    env = env_name(doc.file)
    first = named.get((env, name))
    if first is None:
        return None
    return located(
        doc,
        ("metadata", "name"),
        f"cannot import this {doc.data.get('kind')}: job {name} is imported from"
        f" {first} for environment {env} already, and an environment has one job of"
        " a name",
        hint="import each run of a job from a folder of its own: each folder is an"
        " environment",
    )
