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
_FACTS_TYPES = _types({str}, {tuple}, {frozenset}, {JobLoad}, {tuple, _NONE}, {tuple})
_CLAIM_TYPES = _types({int}, {str}, {bool}, {tuple}, {str, _NONE})
_LOAD_TYPES = (str,) * 5 + (int, int, Decimal, Decimal)
_FILE_TYPES = (str, str, str, str, tuple, str, int)
# A field added to a record without its types here would make every entry a miss.
assert len(_FACTS_TYPES) == len(Facts._fields)
assert len(_CLAIM_TYPES) == len(Claim._fields)
assert len(_LOAD_TYPES) == len(JobLoad._fields)
assert len(_FILE_TYPES) == len(OutFile._fields)
_TEXT = frozenset({str})
_PATH_PART = frozenset({str, int})
_in = frozenset.__contains__


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
    return (
        type(facts) is Facts
        and len(facts) == len(_FACTS_TYPES)
        and all(map(_in, _FACTS_TYPES, map(type, facts)))
        and all(map(_claim_ok, facts.claims))
        and _only_text(facts.ignore)
        and _load_ok(facts.load)
        and (facts.fingerprint is None or _pair_of_text(facts.fingerprint))
        and all(map(_file_ok, facts.files))
    )


def _claim_ok(claim: Any) -> bool:
    return (
        type(claim) is Claim
        and len(claim) == len(_CLAIM_TYPES)
        and all(map(_in, _CLAIM_TYPES, map(type, claim)))
        and _only_text(claim.access_modes)
    )


def _load_ok(load: Any) -> bool:
    return (
        tuple(map(type, load)) == _LOAD_TYPES
        and load.cpu.is_finite()
        and load.memory.is_finite()
    )


def _file_ok(out: Any) -> bool:
    return (
        type(out) is OutFile
        and tuple(map(type, out)) == _FILE_TYPES
        and _path_ok(out.spec_path)
    )


def _problem_ok(problem: Any) -> bool:
    if type(problem) is not Problem:
        return False
    fields = vars(problem)
    return (
        tuple(fields) == _PROBLEM_NAMES
        and all(map(_in, _PROBLEM_TYPES, map(type, fields.values())))
        and problem.severity in ("error", "warning")
        and (problem.line is None or problem.line >= 0)
        and (problem.column is None or problem.column >= 0)
        and _path_ok(problem.path)
    )


def _only_text(items: Any) -> bool:
    return {*map(type, items)} <= _TEXT


def _pair_of_text(value: Any) -> bool:
    return len(value) == 2 and _only_text(value)


def _path_ok(path: tuple[Any, ...]) -> bool:
    return {*map(type, path)} <= _PATH_PART
