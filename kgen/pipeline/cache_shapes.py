"""Whether an entry of the render cache has the shape kgen writes.

The unpickler (kgen.pipeline.cache_file.PlainUnpickler) makes only kgen's plain data
classes, but it cannot say what is inside them: a table written by hand can hold a
render whose files are a string, a problem whose line is a word or a job identity that
is a number, and each of those ended a run as an internal error (exit 3). An entry is
checked when a lookup finds it, before anything uses it; one that fails is a miss, and
what the run makes in its place replaces it.
"""

from __future__ import annotations

import dataclasses
import itertools
from decimal import Decimal
from typing import Any

from kgen.errors import Problem
from kgen.pipeline.facts import Claim, Facts, JobLoad, OutFile

# The types each field of a record may have, in field order: checked in one pass of
# map (a render's entry is checked at each lookup, 8,000 of them a build of 1,000 jobs).
_NONE = type(None)
Types = tuple[frozenset[type], ...]


def _types(*each: set[type]) -> Types:
    return tuple(frozenset(kinds) for kinds in each)


_PROBLEM: dict[str, set[type]] = {
    "message": {str},
    "code": {str},
    "file": {str, _NONE},
    "line": {int, _NONE},
    "column": {int, _NONE},
    "hint": {str, _NONE},
    "severity": {str},
    "path": {tuple},
    "at_key": {bool},
    "context": {str, _NONE},
}
assert tuple(_PROBLEM) == tuple(f.name for f in dataclasses.fields(Problem))
_PROBLEM_NAMES = tuple(_PROBLEM)
_PROBLEM_TYPES = _types(*_PROBLEM.values())
_FACTS_TYPES = _types(
    {str}, {tuple}, {frozenset}, {JobLoad}, {tuple, _NONE}, {tuple}, {tuple}
)
_CLAIM_TYPES = _types({int}, {str}, {bool}, {tuple}, {str, _NONE})
_LOAD_TYPES = (str,) * 5 + (int, int, Decimal, Decimal)
_FILE_TYPES = (str, str, str, str, tuple, str, int)
# A field added to a record without its types here would make every entry a miss.
assert len(_FACTS_TYPES) == len(Facts._fields)
assert len(_CLAIM_TYPES) == len(Claim._fields)
assert len(_LOAD_TYPES) == len(JobLoad._fields)
assert len(_FILE_TYPES) == len(OutFile._fields)
# Every tuple of field types a record may have: one lookup checks them all.
_FACTS_SHAPES = frozenset(itertools.product(*_FACTS_TYPES))
_CLAIM_SHAPES = frozenset(itertools.product(*_CLAIM_TYPES))
_PROBLEM_SHAPES = frozenset(itertools.product(*_PROBLEM_TYPES))
_TEXT = frozenset({str})
_PATH_PART = frozenset({str, int})


def identity_ok(found: Any) -> bool:
    """A job identity: its name and framework, and the labels as the spec wrote them."""
    return (
        type(found) is tuple
        and len(found) == 3
        and type(found[0]) is str
        and type(found[1]) is str
        and (found[2] is None or type(found[2]) is dict)
    )


def entry_ok(found: Any) -> bool:
    """A render's entry: its facts (None for a render that failed) and problems."""
    if type(found) is not tuple or len(found) != 2 or type(found[1]) is not list:
        return False
    facts, problems = found
    return (facts is None or _facts_ok(facts)) and all(map(_problem_ok, problems))


def _facts_ok(facts: Any) -> bool:
    # One function, and each record's field types looked up as one tuple: checked at
    # every lookup, a helper call for each claim and file cost a warm check 4.5%.
    if type(facts) is not Facts or tuple(map(type, facts)) not in _FACTS_SHAPES:
        return False
    for claim in facts.claims:
        if type(claim) is not Claim or tuple(map(type, claim)) not in _CLAIM_SHAPES:
            return False
        if not {*map(type, claim.access_modes)} <= _TEXT:
            return False
    load = facts.load
    if tuple(map(type, load)) != _LOAD_TYPES:
        return False
    if not (load.cpu.is_finite() and load.memory.is_finite()):
        return False
    fingerprint = facts.fingerprint
    if fingerprint is not None and (
        len(fingerprint) != 2 or not {*map(type, fingerprint)} <= _TEXT
    ):
        return False
    for out in facts.files:
        if type(out) is not OutFile or tuple(map(type, out)) != _FILE_TYPES:
            return False
        if not {*map(type, out.spec_path)} <= _PATH_PART:
            return False
    return {*map(type, facts.ignore)} <= _TEXT and {*map(type, facts.names)} <= _TEXT


def _problem_ok(problem: Any) -> bool:
    if type(problem) is not Problem:
        return False
    fields = vars(problem)
    return (
        tuple(fields) == _PROBLEM_NAMES
        and tuple(map(type, fields.values())) in _PROBLEM_SHAPES
        and problem.severity in ("error", "warning")
        and (problem.line is None or problem.line >= 0)
        and (problem.column is None or problem.column >= 0)
        and _path_ok(problem.path)
    )


def _path_ok(path: tuple[Any, ...]) -> bool:
    return {*map(type, path)} <= _PATH_PART
