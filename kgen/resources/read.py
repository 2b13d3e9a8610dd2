"""Read `resources/*.yaml` (every environment) and `resources/<env>/*.yaml` (one),
through the project's one safe reader: regular files inside the project, never through
a link, bounded like every input. One object per file, so each output file has one
source and a problem one place.

A folder below an environment's folder (`resources/prod/monitoring/`), or a link to
one, is an error: its objects would never ship, and an Argo CD directory app skips a
subfolder as silently. Reading it instead would leave unsaid which environment a
folder named like another (`resources/dev/prod/`) is for. A .json file, a manifest to
kubectl, is an error as well; any other file that is no YAML (a README) is no object,
and left alone as beside the job specs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from kgen.errors import Problem
from kgen.load.document import Document
from kgen.load.files import (
    cannot_read,
    escapes,
    outside,
    project_entries,
    read_input,
)
from kgen.load.yaml import load_bytes

FOLDER = "resources"
SUFFIXES = (".yaml", ".yml")


class TeamFile(NamedTuple):
    """One object file: `env` None for a shared one."""

    display: str
    env: str | None
    doc: Document


def read_resources(
    root: Path, environments: list[str]
) -> tuple[list[TeamFile], list[Problem]]:
    """Every object file, shared ones first, each folder in name order."""
    folder = root / FOLDER
    if not os.path.lexists(folder):
        return [], []
    if outside(root, folder) or folder.is_symlink():
        return [], [escapes(FOLDER, what="folder")]
    problems: list[Problem] = []
    found = _read_folder(root, folder, FOLDER, None, problems)
    for name in _subfolders(folder, problems):
        shown = f"{FOLDER}/{name}"
        if name not in environments:
            problems.append(_unknown_environment(shown, name, environments))
            continue
        found += _read_folder(root, folder / name, shown, name, problems)
        problems += _nested(folder / name, shown, name)
    return found, problems


def _subfolders(folder: Path, problems: list[Problem]) -> list[str]:
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
            names = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
            linked = [
                e.name
                for e in entries
                if e.is_symlink() and os.path.splitext(e.name)[1] not in SUFFIXES
            ]
            json = [e.name for e in entries if _is_json(e)]
    except OSError as exc:
        problems.append(cannot_read(FOLDER, exc))
        return []
    problems += [_json_file(f"{FOLDER}/{name}") for name in sorted(json)]
    # A linked folder would be read from wherever it points, or dropped silently.
    problems += [_linked_folder(f"{FOLDER}/{name}") for name in sorted(linked)]
    # Every folder, its name escaped in the message if need be: one left out of the
    # listing would drop its objects silently.
    return sorted(names)


def _linked_folder(shown: str) -> Problem:
    return Problem(
        f"{shown} is a symbolic link; kgen reads an environment's objects only from a folder in resources/",
        "io",
        file=shown,
        hint="put the folder itself under resources/",
    )


def _nested(folder: Path, shown: str, env: str) -> list[Problem]:
    """A problem for each folder in an environment's folder, and each link to one. A
    name that ends in .yaml is read, and refused there as a folder."""
    problems = []
    try:
        with os.scandir(folder) as listing:
            entries = sorted(
                (e for e in listing if not e.name.endswith(SUFFIXES)),
                key=lambda e: e.name,
            )
    except OSError:
        return []  # the read of its files has said why
    for entry in entries:
        display = f"{shown}/{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            what = f"{display}/ is a folder"
            why = ", so nothing in it ships"
        elif entry.is_symlink() and _leads_to_folder(entry):
            what, why = f"{display} is a symbolic link to a folder", ""
        else:
            problems += [_json_file(display)] if _is_json(entry) else []
            continue
        problems.append(
            Problem(
                f"{what}: kgen reads the objects of {env} only from the files"
                f" directly in {shown}/{why}",
                "resource-invalid",
                file=display,
                hint=f"move its files into {shown}/ (an object's output file is named"
                " by its name and kind, not by its path), or out of resources/",
            )
        )
    return problems


def _is_json(entry: os.DirEntry[str]) -> bool:
    """A .json file: a manifest kubectl and kustomize read, which kgen would not ship."""
    return entry.name.lower().endswith(".json") and not entry.is_dir(
        follow_symlinks=False
    )


def _json_file(shown: str) -> Problem:
    return Problem(
        f"{shown} is a JSON file: kgen reads the objects in resources/ only from"
        " .yaml and .yml files, so it never ships",
        "resource-invalid",
        file=shown,
        hint="rename it to .yaml (JSON is YAML, read as written), or move it out of resources/",
    )


def _leads_to_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a loop: neither a folder nor a file, and read by nothing
        return False


def _read_folder(
    root: Path, folder: Path, shown: str, env: str | None, problems: list[Problem]
) -> list[TeamFile]:
    out = []
    # As jobs/: a link is followed only while it stays inside the project.
    for display, entry, link in project_entries(
        root, folder, shown, SUFFIXES, problems
    ):
        reading = read_input(entry.path, display, root=root if link else None)
        if reading.raw is None:
            problems += [reading.problem] if reading.problem else []
            continue
        doc, found = load_bytes(reading.raw, display)
        problems += found
        if doc is not None:
            out.append(TeamFile(display, env, doc))
    return out


def _unknown_environment(shown: str, name: str, environments: list[str]) -> Problem:
    import difflib

    close = difflib.get_close_matches(name, environments, n=1)
    hint = (
        f"did you mean '{close[0]}'?"
        if close
        else (
            f"name the folder after an environment of kgen.yaml ({', '.join(environments)})"
        )
    )
    return Problem(
        f"{shown}/ is not the folder of an environment",
        "resource-invalid",
        file=shown,
        hint=hint,
    )
