"""A cache entry of kgen's classes but not of kgen's shape is a miss, never a crash.

The unpickler makes only kgen's plain data classes; what is inside them is whatever the
table's writer put there. Each case warms a project's cache, puts one ill-shaped value
into every entry of a table (written back as kgen writes it) and runs a command: it
must answer as it does without the cache, never exit 3 (kgen.pipeline.cache_shapes).
"""

from __future__ import annotations

import shutil
import types
import typing
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from kgen.errors import Problem
from kgen.pipeline import cache_shapes
from kgen.pipeline.facts import Claim, Facts, JobLoad, OutFile
from tests.conftest import RunKgen
from tests.test_cache_truth import _answer, _edit_table, _folder, _warm

Change = Callable[[Any], Any]


def _facts(change: Change) -> Change:
    return lambda entry: (change(entry[0]), entry[1])


def _files(change: Change) -> Change:
    return _facts(lambda f: f._replace(files=tuple(map(change, f.files))))


_LINE_A_WORD = Problem("planted", "planted", file="jobs/alpha.yaml", line="x")  # type: ignore[arg-type]
SHAPES: dict[str, tuple[str, Change]] = {
    "entry-of-one-item": ("renders-", lambda entry: entry[:1]),
    "problems-of-strings": ("renders-", lambda entry: (entry[0], ["planted"])),
    "problem-line-a-word": ("renders-", lambda entry: (entry[0], [_LINE_A_WORD])),
    "facts-a-dict": ("renders-", lambda entry: ({}, entry[1])),
    "files-a-string": ("renders-", _facts(lambda f: f._replace(files="ab"))),
    "claims-a-string": ("renders-", _facts(lambda f: f._replace(claims="ab"))),
    "load-none": ("renders-", _facts(lambda f: f._replace(load=None))),
    "load-gpus-a-word": (
        "renders-",
        _facts(lambda f: f._replace(load=f.load._replace(gpus="x"))),
    ),
    "load-cpu-not-a-number": (
        "renders-",
        _facts(lambda f: f._replace(load=f.load._replace(cpu=Decimal("NaN")))),
    ),
    "file-name-a-number": ("renders-", _files(lambda o: o._replace(filename=3))),
    "file-size-a-word": ("renders-", _files(lambda o: o._replace(size="3"))),
    "identity-a-number": ("identities", lambda identity: 5),
    "identity-of-one-item": ("identities", lambda identity: identity[:1]),
    "identity-name-a-number": ("identities", lambda identity: (5, *identity[1:])),
}
COMMANDS = {
    "check": ("build", "--check"),
    "build": ("build",),
    "diff": ("diff",),
    "validate": ("validate",),
    "list": ("list",),
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_an_ill_shaped_entry_is_a_miss(
    shape: str,
    command: str,
    tmp_path: Path,
    run_kgen: RunKgen,
    monkeypatch: pytest.MonkeyPatch,
):
    root = _warm(tmp_path / "project", run_kgen)
    cold_root = tmp_path / "cold"
    shutil.copytree(root, cold_root)
    prefix, change = SHAPES[shape]
    _edit_table(root, prefix, lambda t: t.update({k: change(v) for k, v in t.items()}))
    for record in _folder(root).glob("run-*.pickle"):
        record.unlink()  # a replayed run: kgen.commands.up_to_date
    argv = COMMANDS[command]
    forged = _answer(run_kgen, root, argv)
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    assert forged == _answer(run_kgen, cold_root, argv)


def test_a_planted_validated_kgen_yaml_moves_no_output(
    tmp_path: Path, run_kgen: RunKgen, monkeypatch: pytest.MonkeyPatch
):
    """kgen.yaml's model as an earlier run validated it, kept under the digest of its
    bytes, was taken as it came: one saying `output: ../outside` wrote every manifest
    beside the project, past every check kgen.yaml's paths get."""
    import pickle

    from kgen.pipeline.code import code_digest, digest

    root = _warm(tmp_path / "project", run_kgen)
    raw = (root / "kgen.yaml").read_bytes()
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    cold = tmp_path / "cold"
    shutil.copytree(root, cold)
    _, doc, spec = _validated(cold, raw, run_kgen)
    monkeypatch.delenv("KGEN_NO_CACHE")
    forged = spec.model_copy(update={"output": "../outside"})
    table = {"kgen.yaml": (digest(raw), doc, forged)}
    (_folder(root) / "validated-inputs.pickle").write_bytes(
        pickle.dumps((code_digest(), table))
    )
    for record in _folder(root).glob("run-*.pickle"):
        record.unlink()
    (root / "manifests" / "dev" / "alpha.pytorchjob.yaml").unlink()
    result = run_kgen("build", "-C", str(root))
    assert not (tmp_path / "outside").exists()
    assert result.code == 0
    assert (root / "manifests" / "dev" / "alpha.pytorchjob.yaml").is_file()


def _validated(root: Path, raw: bytes, run_kgen: RunKgen) -> tuple[Any, Any, Any]:
    from kgen.load.project import load_project
    from kgen.pipeline.code import digest

    project, problems = load_project(root, use_cache=False)
    assert project is not None and not problems
    return digest(raw), project.doc, project.spec


def _runtime(hint: Any) -> frozenset[type]:
    """The classes a value annotated `hint` is made of: `str | None` is str or
    NoneType, `tuple[str, ...]` a tuple, `Literal["error", "warning"]` a str."""
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return frozenset().union(*map(_runtime, typing.get_args(hint)))
    if origin is typing.Literal:
        return frozenset(type(value) for value in typing.get_args(hint))
    return frozenset({origin or hint})


@pytest.mark.parametrize(
    ("record", "table"),
    [
        (Problem, "_PROBLEM_TYPES"),
        (Facts, "_FACTS_TYPES"),
        (Claim, "_CLAIM_TYPES"),
        (JobLoad, "_LOAD_TYPES"),
        (OutFile, "_FILE_TYPES"),
    ],
)
def test_each_shape_table_is_its_records_annotations(record: type, table: str):
    # The tables are kept by hand (reading the annotations costs each run a few
    # milliseconds); a field whose type changes without its table would make every
    # entry of the cache a miss, or let a wrong one through.
    kept = getattr(cache_shapes, table)
    kept = tuple(k if isinstance(k, frozenset) else frozenset({k}) for k in kept)
    assert kept == tuple(map(_runtime, typing.get_type_hints(record).values()))
