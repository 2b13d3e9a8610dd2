"""Every string of a job spec that reaches the manifests, and the rule that none of them
holds a control character.

One walk over the validated spec finds them all (env values, command, args, labels and
annotations, rendezvous settings, free-form Kubernetes objects such as affinity, their
keys too), each with its data path, so a problem points at the value written. A check
per field would miss the next field added.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel
from pydantic_core import to_json

from kgen.errors import DataPath, Problem, format_path
from kgen.rules.context import Rule, RuleContext
from kgen.rules.credentials import suspect_json
from kgen.rules.reads import EVERYTHING, reads

if TYPE_CHECKING:
    from kgen.spec.job import JobSpec

# Free text that never reaches the output.
_NOT_RENDERED = frozenset({"description", "lint"})
# C0 controls but tab, newline and carriage return (multi-line scripts in command, args
# and env values, and multi-line annotations, are common), DEL and C1 controls: exec
# refuses a NUL in an argument or env value, so the pods fail after the job was
# accepted, and ESC repaints the terminal of whoever reads the manifest.
# So are the bidirectional embeddings, overrides and isolates (Trojan Source,
# CVE-2021-42574): they reorder how the text around them is shown, so an argument reads
# one way in review and in `kgen explain` and runs another. The marks (U+200E, U+200F)
# only place neutral characters in right-to-left text, and are allowed.
_CONTROL = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
)
# The same in the spec's JSON, where C0 controls are escaped (`\u001b`, `\b`, `\f`) and
# DEL and C1 are not. Starting at a rare character (`\\`, DEL) the regex engine skips
# from one to the next; C1 controls are not ASCII, which a string knows at once.
_C0_IN_JSON = re.compile(r"\\(?:u00(?:0[0-8bcef]|1[0-9a-f])|[bf])")
_C1_IN_JSON = re.compile(r"[\x80-\x9f\u202a-\u202e\u2066-\u2069]")
_NAMES = {0x00: "NUL", 0x07: "BEL", 0x08: "backspace", 0x1B: "ESC", 0x7F: "DEL"}
_BIDI = {
    0x202A: "LEFT-TO-RIGHT EMBEDDING",
    0x202B: "RIGHT-TO-LEFT EMBEDDING",
    0x202C: "POP DIRECTIONAL FORMATTING",
    0x202D: "LEFT-TO-RIGHT OVERRIDE",
    0x202E: "RIGHT-TO-LEFT OVERRIDE",
    0x2066: "LEFT-TO-RIGHT ISOLATE",
    0x2067: "RIGHT-TO-LEFT ISOLATE",
    0x2068: "FIRST STRONG ISOLATE",
    0x2069: "POP DIRECTIONAL ISOLATE",
}


class Text(NamedTuple):
    """A string in the spec: where it is, and whether it is a mapping key."""

    path: DataPath
    text: str
    at_key: bool


class Screen(NamedTuple):
    """What a quick look at the spec's JSON found possible; the walk looks closer."""

    controls: bool
    credentials: bool


# The spec looked at last, by identity: the value rules ask about the same spec in a row.
_last_screen: list[tuple[Any, Screen]] = []
_last_texts: list[tuple[Any, list[Text]]] = []


_NOT_RENDERED_SET = set(_NOT_RENDERED)


def screen(spec: JobSpec) -> Screen:
    """A look at the rendered part of `spec` as JSON before any walk: pydantic writes it
    in its core for a third of what the walk costs, and nearly every spec is clean."""
    if not _last_screen or _last_screen[0][0] is not spec:
        # Keys as written (camelCase): snake_case names would put some thirty `_` in
        # every document, each a place where a token prefix (`ghp_`) is looked for.
        text = spec.model_dump_json(
            exclude=_NOT_RENDERED_SET, exclude_none=True, by_alias=True
        )
        found = Screen(_may_hold_controls(text), suspect_json(text))
        _last_screen[:] = [(spec, found)]
    return _last_screen[0][1]


def screen_data(spec: JobSpec, data: Mapping[str, Any]) -> None:
    """Screen `spec` by the data it was validated from, written as JSON in pydantic's
    core without the model (a quarter of the time: the first merged spec of every job
    is screened). Sound, as a screen must be: every string of the spec is a string of
    the data as written (validation checks strings, never makes them, but for numbers
    written as quantities and the defaults, which hold no control character and no
    credential; tests/test_rule_reuse.py), and a screen that finds something in what
    the spec does not render only makes the walk look closer."""
    rendered = {k: v for k, v in data.items() if k not in _NOT_RENDERED}
    try:
        text = to_json(rendered).decode()
    except (ValueError, RecursionError):  # PydanticSerializationError, a cycle
        return  # the spec itself is looked at when asked
    _last_screen[:] = [(spec, Screen(_may_hold_controls(text), suspect_json(text)))]


CLEAN = Screen(controls=False, credentials=False)


def known_screen(spec: JobSpec) -> Screen | None:
    """What screen() found in `spec`, if it looked last at it."""
    return _last_screen[0][1] if _last_screen and _last_screen[0][0] is spec else None


def screen_fields(spec: JobSpec, keys: Collection[str]) -> None:
    """Screen `spec` by the fields under `keys` (top-level keys as written) alone: its
    other fields are those of a spec whose screen found nothing (kgen.rules.reuse).

    Exact, because each screen is a search for a few characters that a JSON document
    holds only inside one member (a string's escapes, quote, `@`, `=`, ` -`, a flag
    after a string's quote, a token prefix: none holds `,"`), so the whole document
    holds one where one of its members does; and a member's JSON is its field's alone.
    """
    names = _field_names(type(spec))
    include = set()
    for key in keys:
        if key in _NOT_RENDERED:
            continue
        if key not in names:
            return  # not a field: the whole spec is looked at when asked
        include.add(names[key])
    text = (
        spec.model_dump_json(include=include, exclude_none=True, by_alias=True)
        if include
        else ""
    )
    _last_screen[:] = [(spec, Screen(_may_hold_controls(text), suspect_json(text)))]


@functools.cache
def _field_names(model: type[BaseModel]) -> dict[str, str]:
    return {info.alias or name: name for name, info in model.model_fields.items()}


def texts(spec: JobSpec) -> list[Text]:
    """Every string of `spec` that reaches the output, mapping keys included."""
    if not _last_texts or _last_texts[0][0] is not spec:
        _last_texts[:] = [(spec, list(_walk(spec)))]
    return _last_texts[0][1]


def _walk(spec: BaseModel) -> Iterator[Text]:
    stack: list[tuple[DataPath, Any]] = [((), spec)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            yield Text(path, node, False)
        elif isinstance(node, BaseModel):
            for name, alias in _fields(type(node)):
                value = getattr(node, name)
                if value is not None:
                    stack.append(((*path, alias), value))
        elif isinstance(node, dict):
            for key, value in node.items():
                if isinstance(key, str):
                    yield Text((*path, key), key, True)
                stack.append(((*path, key), value))
        elif isinstance(node, list):
            stack += [((*path, index), item) for index, item in enumerate(node)]


@functools.cache
def _fields(model: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    return tuple(
        (name, info.alias or name)
        for name, info in model.model_fields.items()
        if (info.alias or name) not in _NOT_RENDERED
    )


def _may_hold_controls(text: str) -> bool:
    # `\\b` is also an escaped backslash before b: the walk then looks closer.
    return bool(
        ("\\" in text and _C0_IN_JSON.search(text))
        or "\x7f" in text
        or (not text.isascii() and _C1_IN_JSON.search(text))
    )


@reads(EVERYTHING)
def _control_characters(spec: JobSpec, ctx: RuleContext) -> Iterator[Problem]:
    if not screen(spec).controls:
        return
    for text in texts(spec):
        problem = control_character(text.text, text.path, at_key=text.at_key)
        if problem is not None:
            yield problem


def control_character(value: str, path: DataPath, *, at_key: bool) -> Problem | None:
    """The problem of a string that holds a control character (the first), if it
    does: a job's, or a team object's (kgen.resources.controls)."""
    found = _CONTROL.search(value)
    if found is None:
        return None
    code = ord(found.group())
    what = "the key" if at_key else "the value"
    if code in _BIDI:
        return Problem(
            f"{what} at {format_path(path)} holds the bidirectional control"
            f" \\u{code:04x} ({_BIDI[code]}), which shows its text in another order"
            " than it runs",
            "control-character",
            path=path,
            at_key=at_key,
            hint="remove it; to show right-to-left text, the marks \\u200e and"
            " \\u200f are enough",
        )
    return Problem(
        f"{what} at {format_path(path)} holds the control character"
        f" \\x{code:02x} ({_NAMES.get(code, 'C1' if code >= 0x80 else 'C0')})",
        "control-character",
        path=path,
        at_key=at_key,
        hint="remove it: tab, newline and carriage return are the only control"
        " characters a value may hold",
    )


VALUE_RULES: tuple[Rule, ...] = (_control_characters,)
