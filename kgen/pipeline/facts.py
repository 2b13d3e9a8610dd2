"""What the rest of a run needs to know of one rendered job, in plain picklable data.

A render's pydantic spec and object trees are large and slow to move between processes;
the rules that span jobs (claims, quotas, in-place changes) and the output tree need only
these facts: claims, GPU and CPU load, the spec fingerprint and the emitted files. A
worker process renders and boils each job down to them; the parent never needs more.
They are named tuples: they cross processes and the cache 4,000 at a time, and tuples
pickle three times faster than dataclasses.
"""

from __future__ import annotations

import hashlib
import re
from decimal import Decimal
from typing import TYPE_CHECKING, NamedTuple

from kgen.errors import DataPath
from kgen.kinds import kind_for, kind_named
from kgen.output.emitter import dump_documents
from kgen.spec.quantity import parse_quantity

if TYPE_CHECKING:
    from kgen.render.base import Environment, Manifest
    from kgen.spec.job import JobSpec


class Claim(NamedTuple):
    """A volume's claim: its index under `volumes`, and its shape when the job creates it."""

    volume: int
    name: str
    created: bool
    access_modes: tuple[str, ...] = ()
    storage_class: str | None = None


class JobLoad(NamedTuple):
    env: str
    job: str
    kind: str
    target: str
    roles: str
    pods: int
    gpus: int
    cpu: Decimal
    memory: Decimal


class OutFile(NamedTuple):
    """One object as emitted YAML (without the header), and where it came from."""

    filename: str
    text: str
    kind: str
    name: str
    spec_path: DataPath


class Facts(NamedTuple):
    job_name: str
    claims: tuple[Claim, ...]
    ignore: frozenset[str]
    load: JobLoad
    # The job object's file name and a digest of its `spec`, for the in-place check.
    fingerprint: tuple[str, str] | None
    files: tuple[OutFile, ...] = ()


def facts_of(
    spec: JobSpec, env: Environment, manifests: list[Manifest], *, emit: bool
) -> Facts:
    claims = tuple(
        Claim(
            index,
            volume.claim,
            volume.create is not None,
            tuple(volume.create.access_modes) if volume.create else (),
            volume.create.storage_class if volume.create else None,
        )
        for index, volume in enumerate(spec.volumes)
        if volume.claim
    )
    texts = [dump_documents([m.body]) for m in manifests] if emit else []
    files = (
        tuple(
            OutFile(m.filename, text, m.kind, m.name, m.spec_path)
            for m, text in zip(manifests, texts, strict=True)
        )
        if emit
        else ()
    )
    return Facts(
        manifests[0].name,
        claims,
        frozenset(spec.lint.ignore),
        job_load(spec, env),
        _fingerprint(manifests[0], texts[0] if texts else None),
        files,
    )


# A mark names its scheme, so marks of another scheme (an older kgen's) are told apart
# instead of read as a change.
FINGERPRINT_SCHEME = "spec-yaml-sha256"
# The next line that starts at column 0: the end of a top-level key's block. Lines
# inside the block are indented, or empty within a literal block.
_TOP_LEVEL_LINE = re.compile(r"\n[^ \n]")


def _fingerprint(job: Manifest, text: str | None) -> tuple[str, str] | None:
    """A digest of the job's `spec` as emitted: the same bytes whatever the order of
    the run, and hashed from text the build has already made (encoding the tree again
    as canonical JSON cost a tenth of a build)."""
    if kind_named(job.kind) is None:
        return None
    if text is None:
        text = dump_documents([job.body])
    start = text.find("\nspec:")
    if start < 0:
        block = ""
    else:
        end = _TOP_LEVEL_LINE.search(text, start + 1)
        block = text[start + 1 : end.start() + 1 if end else len(text)]
    mark = hashlib.sha256(block.encode()).hexdigest()[:16]
    return job.filename, f"{FINGERPRINT_SCHEME}:{mark}"


def job_load(spec: JobSpec, env: Environment) -> JobLoad:
    """Pods, GPUs, CPU and memory requests of a job as rendered; elastic jobs at their
    maximum size, since that is what a quota must hold."""
    # Imported here: runs that take every render from the cache never build the models.
    from kgen.render.roles import role_settings
    from kgen.spec.job import role_items

    kind = kind_for(spec.framework, env.target)
    limit = kind.scale_limit(spec)
    pods = gpus = 0
    cpu = memory = Decimal(0)
    parts = []
    for name, role in role_items(spec):
        count = role.replicas
        if limit is not None and kind.role(name).scaled:
            count = max(count, limit or count)
        settings = role_settings(spec, name, role)
        pods += count
        gpus += count * int(settings.limits.get(spec.resources.gpu_resource, "0"))
        cpu += count * (parse_quantity(settings.requests.get("cpu", "0")) or 0)
        memory += count * (parse_quantity(settings.requests.get("memory", "0")) or 0)
        parts.append(
            f"{name} {role.replicas}" + (f"..{count}" if count != role.replicas else "")
        )
    return JobLoad(
        env.name,
        spec.name,
        kind.kind,
        env.target.name,
        ", ".join(parts),
        pods,
        gpus,
        cpu,
        memory,
    )
