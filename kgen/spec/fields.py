"""Annotated field types shared by the job, overlay and project models.

Each check raises ValueError with a sentence a user can act on; pydantic's own pattern
messages ("String should match pattern ...") are not that.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema

from kgen.spec.quantity import quantity_text

_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
_IMAGE = re.compile(
    r"^[a-z0-9][^\s@:\x00-\x1f\x7f]*(:[\w][\w.-]{0,127})?(@[a-z0-9]+:[a-f0-9]{32,})?$"
)
INT32_MAX = 2**31 - 1


# Values each check found valid, remembered: a build validates the same names,
# labels and env names in job after job (a cold build of 1,000 jobs: 23 checks a
# spec, most of values seen before). Each check is a function of the value alone.
MAX_REMEMBERED = 4096
MAX_REMEMBERED_LENGTH = 256


def checked(check: Callable[[str], str | None]) -> AfterValidator:
    valid: set[str] = set()

    def run(value: str) -> str:
        if value in valid:
            return value
        problem = check(value)
        if problem:
            raise ValueError(problem)
        if len(value) <= MAX_REMEMBERED_LENGTH:
            if len(valid) >= MAX_REMEMBERED:
                valid.clear()
            valid.add(value)
        return value

    return AfterValidator(run)


def _dns1035(value: str) -> str | None:
    if len(value) > 63 or not _DNS1035.fullmatch(value):
        return (
            f"'{value}' is not a valid name: use at most 63 lowercase letters, digits"
            " and '-', starting with a letter and ending with a letter or digit"
        )
    return None


def _dns1123_label(value: str) -> str | None:
    if len(value) > 63 or not _DNS1123_LABEL.fullmatch(value):
        return (
            f"'{value}' is not a valid name: use at most 63 lowercase letters, digits"
            " and '-', starting and ending with a letter or digit"
        )
    return None


def _dns1123_subdomain(value: str) -> str | None:
    if len(value) > 253 or not _DNS1123_SUBDOMAIN.fullmatch(value):
        return (
            f"'{value}' is not a valid object name: use lowercase letters, digits,"
            " '-' and '.', starting and ending with a letter or digit"
        )
    return None


def _qualified_key(value: str) -> str | None:
    prefix, _, name = value.rpartition("/")
    if (
        (prefix and _dns1123_subdomain(prefix))
        or len(name) > 63
        or not _QUALIFIED_NAME.fullmatch(name)
    ):
        return (
            f"'{value}' is not a valid key: an optional DNS prefix and '/', then at most"
            " 63 letters, digits, '-', '_' or '.', starting and ending alphanumeric"
        )
    return None


def _label_value(value: str) -> str | None:
    if value and (len(value) > 63 or not _QUALIFIED_NAME.fullmatch(value)):
        return (
            f"'{value}' is not a valid label value: at most 63 letters, digits, '-',"
            " '_' or '.', starting and ending alphanumeric"
        )
    return None


def _env_name(value: str) -> str | None:
    if not _ENV_NAME.fullmatch(value):
        return f"'{value}' is not a valid environment variable name"
    return None


def _image(value: str) -> str | None:
    if not _IMAGE.fullmatch(value):
        return f"'{value}' is not a valid image reference (registry/name:tag or @sha256:digest)"
    return None


def _absolute_path(value: str) -> str | None:
    if not value.startswith("/") or "\0" in value:
        return f"'{value}' must be an absolute path inside the container"
    return None


def _sub_path(value: str) -> str | None:
    if value.startswith("/") or ".." in value.split("/") or "\0" in value:
        return f"'{value}' must be a relative path inside the volume, without '..'"
    return None


def _gpu_resource(value: str) -> str | None:
    prefix, _, name = value.partition("/")
    if not prefix or _dns1123_subdomain(prefix) or not _QUALIFIED_NAME.fullmatch(name):
        return f"'{value}' is not an extended resource name such as nvidia.com/gpu"
    return None


def dns_subdomain_problem(value: str) -> str | None:
    """Why `value` is not an object name, or None."""
    return _dns1123_subdomain(value)


def label_key_problem(value: str) -> str | None:
    """Why `value` is not a label or annotation key, or None."""
    return _qualified_key(value)


def label_value_problem(value: str) -> str | None:
    """Why `value` is not a label value, or None."""
    return _label_value(value)


# The API server's limit on an object's annotations, keys and values in all
# (k8s.io/apimachinery pkg/api/validation/objectmeta.go, TotalAnnotationSizeLimitB).
MAX_ANNOTATIONS_BYTES = 256 * 1024


def annotations_size_problem(annotations: dict[str, Any]) -> str | None:
    """Why `annotations` are too large for the API server, or None."""
    size = sum(
        len(str(k).encode()) + len(v.encode() if isinstance(v, str) else b"")
        for k, v in annotations.items()
    )
    if size > MAX_ANNOTATIONS_BYTES:
        return (
            f"the annotations are {size:,} bytes (keys and values); the API server"
            f" takes at most {MAX_ANNOTATIONS_BYTES:,} (256 KiB) in all"
        )
    return None


def _annotations_size(value: dict[str, str]) -> dict[str, str]:
    problem = annotations_size_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def extended_resource_problem(value: str) -> str | None:
    """Why `value` is not an extended resource name (`rdma/hca`), or None."""
    if value.startswith("hugepages-"):
        return None
    return _gpu_resource(value)


DnsName = Annotated[str, checked(_dns1035)]
DnsLabel = Annotated[str, checked(_dns1123_label)]
ObjectName = Annotated[str, checked(_dns1123_subdomain)]
LabelKey = Annotated[str, checked(_qualified_key)]
LabelValue = Annotated[str, checked(_label_value)]
EnvName = Annotated[str, checked(_env_name)]
Image = Annotated[str, checked(_image)]
AbsolutePath = Annotated[str, checked(_absolute_path)]
SubPath = Annotated[str, checked(_sub_path)]
GpuResource = Annotated[str, checked(_gpu_resource)]
# What users may write (numbers included) for the JSON Schema editors read.
_QUANTITY_SCHEMA = {
    "anyOf": [
        {
            "type": "string",
            "pattern": r"^[+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+|[numkKMGTPE]i?)?$",
        },
        {"type": "number", "minimum": 0},
    ]
}
Quantity = Annotated[
    str, BeforeValidator(quantity_text), WithJsonSchema(_QUANTITY_SCHEMA)
]


def _within(kind: str) -> AfterValidator:
    """The integer range of a Kubernetes format, with the whole range in the message."""
    from kgen.check.core import INTEGER_RANGES

    low, high = INTEGER_RANGES[kind]

    def run(value: int) -> int:
        if not low <= value <= high:
            raise ValueError(
                f"{value} is out of range: it must be {low} to {high} ({kind})"
            )
        return value

    return AfterValidator(run)


# Entries a list or mapping of a spec may hold. A pod's env of 10,000 is already
# 300 KB a role, and the API server refuses an object over 3 MiB; checked before the
# entries are, so 100,000 wrong ones are one problem, not 100,000 (a second of work).
MAX_ENTRIES = 10_000


def at_most(limit: int, why: str) -> BeforeValidator:
    """Refuse a list or mapping of more than `limit` entries before checking any."""

    def check(value: Any) -> Any:
        if isinstance(value, list | dict) and len(value) > limit:
            raise ValueError(
                f"{len(value)} entries are too many: kgen takes at most {limit}, {why}"
            )
        return value

    return BeforeValidator(check)


AtMost = at_most(MAX_ENTRIES, "and the API server refuses an object over 3 MiB")
Annotations = Annotated[dict[LabelKey, str], AtMost, AfterValidator(_annotations_size)]
# Every environment renders every job, and lists its overlays: a kgen.yaml of 50,000
# environments would take minutes to build. Real projects have a handful.
MAX_ENVIRONMENTS = 1_000
MAX_OVERLAYS = 100
Count = Annotated[int, Field(ge=1, le=10_000)]
# Integers that reach the output as a Kubernetes int32 or int64 (tolerationSeconds is
# int64): a larger value renders, and the API server refuses the object.
Int32Value = Annotated[int, _within("int32")]
Int64 = Annotated[int, _within("int64")]
Int32 = Annotated[int, Field(ge=0, le=INT32_MAX)]
PositiveSeconds = Annotated[int, Field(ge=1, le=2**53)]


def _silenceable_rule(value: str) -> str | None:
    # Imported here: the catalogue is data about codes, and fields only need its keys.
    from kgen.rules.catalog import RULES

    rule = RULES.get(value)
    if rule is None:
        import difflib

        close = difflib.get_close_matches(value, list(RULES), n=1)
        suffix = f"; did you mean '{close[0]}'?" if close else ""
        return f"'{value}' is not a kgen rule{suffix}"
    if value == "secret-env-literal":
        return (
            f"'{value}' cannot be silenced for a whole job; allow each variable under"
            " lint.allowLiterals instead"
        )
    if value == "secret-literal":
        return (
            f"'{value}' cannot be silenced; allow each flag or option that only looks"
            " like a secret under lint.allowLiterals instead"
        )
    if not rule.silenceable:
        return f"'{value}' cannot be silenced: the output would be wrong or rejected"
    return None


SilenceableRule = Annotated[str, checked(_silenceable_rule)]
Reason = Annotated[str, Field(min_length=3)]
