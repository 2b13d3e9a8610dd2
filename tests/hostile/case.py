"""The machinery of the hostile-input corpus: what a case is, and how its project is
written to disk.

Each case starts from tests/cases/base/ (environments dev on v1 and old on v1beta1) plus
a valid job at jobs/train.yaml, then writes its files over them: bytes or text, a
`Link` for a symbolic link, a `Fifo` for a named pipe, None to delete. `prepare` runs
last, for what files alone cannot say (permissions, a file planted beside the project).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Link:
    """A symbolic link to `target` (relative to the project root, or absolute)."""

    target: str


@dataclass(frozen=True)
class Fifo:
    """A named pipe: reading one blocks until a writer comes, which never happens."""


Content = bytes | str | Link | Fifo | None

# Where links and paths that leave the project point: beside the project, made by
# materialise() (so no case depends on what the machine has in /etc).
OUTSIDE_DIR = "../outside"
OUTSIDE_FILE = "../outside/secret.yaml"
OUTSIDE_SECRET = "token: do-not-read\n"

VALID_JOB = """\
framework: pytorch
image: registry.example.com/train:1.0
roles:
  master: {replicas: 1}
  worker: {replicas: 2}
"""


@dataclass(frozen=True)
class Case:
    files: dict[str, Content]
    args: tuple[str, ...] = ("validate",)
    expected_exit: int = 1
    # Why the case is here, for whoever reads a failure.
    about: str = ""
    # Runs after the files are written, with the project root.
    prepare: Callable[[Path], None] | None = None
    # `make hardening`'s time bound on the reference machine. More than a second only
    # for an input as large as a limit admits, whose cost is linear in its size (say so
    # in `about`, with what the quadratic cost was): that the case ends at all, and
    # within a small multiple of a one-job run, is what it guards.
    seconds: float = 1.0


def job(text: str | bytes) -> dict[str, Content]:
    return {"jobs/train.yaml": text}


def job_with(line: str) -> dict[str, Content]:
    """The valid job plus one more top-level line."""
    return job(VALID_JOB + line + "\n")


BASE = Path(__file__).resolve().parent.parent / "cases" / "base"


def materialise(case: Case, root: Path) -> Path:
    """Write the case's project at `root`, and the outside folder beside it."""
    outside = root.parent / "outside"
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "secret.yaml").write_text(OUTSIDE_SECRET)
    shutil.copytree(BASE, root, dirs_exist_ok=True)
    files: dict[str, Content] = {"jobs/train.yaml": VALID_JOB, **case.files}
    for name, content in files.items():
        path = root / name
        if path.is_file() or path.is_symlink():
            path.unlink()
        if content is None:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            target = content.target
            if not target.startswith("/"):
                # Relative to the project root, whatever folder the link is in.
                target = os.path.relpath(root / target, path.parent)
            path.symlink_to(target)
        elif isinstance(content, Fifo):
            os.mkfifo(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode())
    if case.prepare is not None:
        case.prepare(root)
    return root
