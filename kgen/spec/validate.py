"""Validate loaded data against a pydantic model; turn its errors into located problems.

pydantic reports a `loc` tuple in the input's own keys (aliases); that is exactly the
data path the loader and the overlay merge keep positions for.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from kgen.errors import DataPath, Problem, shortened
from kgen.flow_style import flow_style
from kgen.spec.hidden import Hidden, secret
from kgen.spec.quantity import NOT_A_QUANTITY, QUANTITY_HINT

M = TypeVar("M", bound=BaseModel)

_TYPE_NAMES = {
    "string_type": "a string",
    "int_type": "a whole number",
    "bool_type": "true or false",
    "dict_type": "a mapping",
    "list_type": "a list",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "float_type": "a number",
}


def validate_model(model: type[M], data: Any) -> tuple[M | None, list[Problem]]:
    """Validate `data`; on failure return problems whose `path` locates each error."""
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        errors = exc.errors()
        problems = [_problem(model, error, data) for error in errors[:MAX_PROBLEMS]]
        if len(errors) > MAX_PROBLEMS:
            # Thousands of problems are one mistake repeated; listing them all costs
            # time and buries the first.
            problems.append(
                Problem(
                    f"{len(errors) - MAX_PROBLEMS} more problems in this spec are not listed",
                    "too-many-problems",
                    path=(),
                    at_key=True,
                    hint="fix the ones listed (often one mistake causes them all) and validate again",
                )
            )
        return None, problems


MAX_PROBLEMS = 200


def _problem(model: type[BaseModel], error: Any, data: Any) -> Problem:
    on_key = "[key]" in error["loc"]
    loc: DataPath = tuple(part for part in error["loc"] if part != "[key]")
    kind: str = error["type"]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        # The error path only.
        from kgen.spec.kube_keys import kubernetes_key_hint
        from kgen.spec.placed import unknown_key_hint

        hint = (
            gpu_hint(key, loc)
            or kubernetes_key_hint(key, loc, data)
            or unknown_key_hint(key, model, loc[:-1])
        )
        return Problem(
            f"unknown key '{key}'", "unknown-key", path=loc, hint=hint, at_key=True
        )
    if kind == "missing":
        return Problem(
            f"missing required key '{loc[-1]}'",
            "missing-key",
            # Located at the parent, unless an overlay deleted the key: then at that.
            path=loc,
            at_key=True,
            hint=_missing_image_hint(loc, data) or _roles_hint(model, loc),
        )
    value = error.get("input")
    if not on_key and secret(data, loc):
        # A value under a secret's name is never quoted, whatever is wrong with it.
        value = Hidden(value)
    if kind in _TYPE_NAMES:
        return _type_problem(loc, _TYPE_NAMES[kind], value)
    message: str = error["msg"]
    message = message.removeprefix("Value error, ")
    bound = _bound_message(kind, error.get("ctx") or {}, value)
    if bound:
        message = bound
    elif kind == "literal_error":
        message = (
            f"{_shown(value)} is not allowed here: {message[0].lower()}{message[1:]}"
        )
    elif message.startswith("Input should be"):
        message = f"{_kind(value)}: {message[0].lower()}{message[1:]}"
    if isinstance(value, Hidden):
        message = value.hide(message)
    elif isinstance(value, str) and len(value) > MAX_QUOTED:
        message = message.replace(value, shortened(value, MAX_QUOTED))
    # The grammar, as a team object's quantity is told it (kgen.check.core_formats).
    hint = QUANTITY_HINT if message.endswith(NOT_A_QUANTITY) else None
    return Problem(message, "invalid-value", path=loc, at_key=on_key, hint=hint)


def gpu_hint(key: str, loc: DataPath) -> str | None:
    """A GPU written as Kubernetes would (`limits: {nvidia.com/gpu: 1}`): kgen counts
    GPUs in resources.gpu, and puts them into limits itself."""
    if "gpu" not in key.lower() or len(loc) < 3 or loc[-3] != "resources":
        return None
    if loc[-2] not in ("limits", "requests"):
        return None
    # Only an extended resource name (`amd.com/gpu`) can be a gpuResource; a bare `gpu`
    # means the default, nvidia.com/gpu.
    vendor = (
        f" with `gpuResource: {key}`" if "/" in key and key != "nvidia.com/gpu" else ""
    )
    return f"count GPUs in resources.gpu (`resources: {{gpu: 1}}`){vendor}; kgen puts them into limits"


def _missing_image_hint(loc: DataPath, data: Any) -> str | None:
    """A job's image: the one a role sets, which replaces the job's for that role
    only, or else its form."""
    if loc != ("image",):
        return None
    roles = data.get("roles") if isinstance(data, dict) else None
    for name, role in roles.items() if isinstance(roles, dict) else ():
        image = role.get("image") if isinstance(role, dict) else None
        if isinstance(image, str):
            return (
                f"set the job's image at the top (`image: {image}`); a role's image,"
                f" as roles.{name}.image, replaces it for that role only"
            )
    return "set the training image every role runs: `image: <registry>/<name>:<tag>`"


def _roles_hint(model: type[BaseModel], loc: DataPath) -> str | None:
    """A job without roles: the kind's own, as its model's example writes them."""
    field = model.model_fields.get("roles") if loc == ("roles",) else None
    if field is None or not field.examples:
        return None
    return f"add the job's pods, e.g. `roles: {flow_style(field.examples[0])}`"


# A value longer than this is quoted by its start (masked first, then cut): a message
# that quotes a 240 KB label value is 240 KB in every report, in every format.
MAX_QUOTED = 200


def _bound_message(kind: str, ctx: dict[str, Any], value: Any) -> str | None:
    if kind == "greater_than_equal":
        return f"{_shown(value)} is too small: it must be at least {ctx['ge']}"
    if kind == "greater_than":
        return f"{_shown(value)} is too small: it must be more than {ctx['gt']}"
    if kind == "less_than_equal":
        return f"{_shown(value)} is too large: it must be at most {ctx['le']}"
    if kind == "less_than":
        return f"{_shown(value)} is too large: it must be less than {ctx['lt']}"
    if kind == "string_too_short":
        return (
            f"'{value}' is too short: it needs at least {ctx['min_length']} characters"
        )
    if kind == "too_short":
        return (
            "must not be empty"
            if ctx["min_length"] == 1
            else f"needs at least {ctx['min_length']} entries"
        )
    return None


def _type_problem(loc: DataPath, expected: str, shown: Any) -> Problem:
    hint = None
    value = shown.value if isinstance(shown, Hidden) else shown
    if expected == "a string" and isinstance(value, bool | int | float):
        hint = 'quote the value to keep it a string, e.g. "yes" or "8080"'
    elif isinstance(value, str) and _reads_as(value, expected):
        # Only a quoted number or boolean is a string that reads as one: `three` has no
        # quotes to remove.
        hint = "remove the quotes"
    elif isinstance(value, str) and expected == "a whole number":
        hint = "write a whole number, e.g. 3"
    elif isinstance(value, str) and expected == "true or false":
        hint = "write true or false"
    return Problem(
        f"expected {expected}, got {_kind(shown)}", "wrong-type", path=loc, hint=hint
    )


def _reads_as(text: str, expected: str) -> bool:
    """Whether the string, unquoted, would be what the field expects."""
    if expected == "a whole number":
        return text.strip().lstrip("+-").isdigit() and text.isascii()
    return expected == "true or false" and text in ("true", "false")


def _kind(value: Any) -> str:
    if isinstance(value, Hidden):
        return _hidden_kind(value.value)
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        shown = _shown(value)
        return shown if shown.startswith("a number") else f"the number {shown}"
    if isinstance(value, str):
        return f"the string '{shortened(value, MAX_QUOTED)}'"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__  # pragma: no cover


def _hidden_kind(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return _kind(value)
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return _kind(value)


def _shown(value: Any) -> str:
    """A value for a message. An integer past 60 digits is shown by its size: the
    loader refuses more than 100, but no message may depend on that, and Python
    refuses to print one past 4,300 digits (CVE-2020-10735)."""
    if type(value) is int and value.bit_length() > 200:
        if value.bit_length() > 14_000:
            return "a number of thousands of digits"
        digits = len(str(abs(value)))
        return f"a number of {digits} digits ({str(value)[:12]}...)"
    # As the user would write it: `true`, `null`, `{b: c}`, never Python's `True`.
    return str(value) if isinstance(value, Hidden) else flow_style(value)
