"""Check the team's objects strictly: core kinds against the core definitions of the
project's Kubernetes version (unknown fields are errors, as kgen's own output), other
kinds against the project's CRDs; a kind kgen can check neither way is an error, and
a Secret, of any group, is refused (kgen never puts credentials in git:
docs/guarantees.md)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from kgen.check import core, core_objects
from kgen.errors import Problem, printable, shortened, unquoted
from kgen.load.jobs import located
from kgen.resources.read import TeamFile
from kgen.spec.fields import dns_subdomain_problem
from kgen.spec.hidden import secret

# Core kinds without a namespace: the rest get the environment's when they set none.
CLUSTER_SCOPED = frozenset(
    {
        "Namespace",
        "PriorityClass",
        "RuntimeClass",
        "StorageClass",
        "PersistentVolume",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "IngressClass",
        "CSIDriver",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
    }
)


class TeamObject(NamedTuple):
    """A checked object, as it goes into one environment's output (a NamedTuple: a
    frozen dataclass compiles its methods at import, 2 ms of a one-spec validate)."""

    file: TeamFile
    kind: str
    name: str
    body: dict[str, Any]
    namespaced: bool


def file_name(obj: TeamObject) -> str:
    """The object's file in an environment's output, named as kgen names a job's
    (kgen.render.base.Manifest.filename)."""
    return f"{obj.name}.{obj.kind.lower()}.yaml"


def file_key(name: str) -> str:
    """What two file names share when they would be one file: themselves, or, for a
    name beyond ASCII (a CRD's kind may be), its canonical caseless form, as a
    case-insensitive or normalising file system (macOS) compares names."""
    if name.isascii():
        return name.lower()
    import unicodedata  # here: kinds beyond ASCII are rare

    folded = unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())
    return unicodedata.normalize("NFC", folded)


@functools.cache
def core_kinds(version: str) -> dict[tuple[str, str], str]:
    """(apiVersion, kind) -> the core definition, from the definitions themselves."""
    found: dict[tuple[str, str], str] = {}
    for name, schema in core.definitions(version).items():
        for gvk in schema.get("x-kubernetes-group-version-kind") or ():
            group, version_, kind = gvk["group"], gvk["version"], gvk["kind"]
            api = f"{group}/{version_}" if group else version_
            found.setdefault((api, kind), name)
    return found


def check_object(
    team: TeamFile, version: str, crds: Mapping[tuple[str, str], Any]
) -> tuple[TeamObject | None, list[Problem]]:
    data = team.doc.data
    if not isinstance(data, dict):
        return None, [
            _at(
                team,
                (),
                "an object file holds one Kubernetes object, a mapping",
                "resource-invalid",
            )
        ]
    api, kind = data.get("apiVersion"), data.get("kind")
    if not isinstance(api, str) or not isinstance(kind, str):
        return None, [
            _at(
                team,
                (),
                "an object needs apiVersion and kind (strings)",
                "resource-invalid",
            )
        ]
    # Whatever its group: a Secret is what holds credentials, by its name (a
    # project's CRD of that kind is no sealed or external secret, which say so).
    if kind.lower() == "secret":
        return None, [_secret(team)]
    metadata = data.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if not isinstance(name, str):
        return None, [
            _at(
                team, ("metadata",), "an object needs metadata.name", "resource-invalid"
            )
        ]
    # The name makes the output file's name: it must be a name, never a path.
    problem = dns_subdomain_problem(name)
    if problem is not None:
        return None, [_at(team, ("metadata", "name"), problem, "resource-invalid")]
    if not _KIND.fullmatch(kind):
        return None, [_at(team, ("kind",), _not_a_kind(kind), "resource-invalid")]
    definition = core_kinds(version).get((api, kind))
    if definition is not None:
        found = core_objects.check_object(data, definition, path=(), version=version)
        found += _config_keys(data) if kind == "ConfigMap" and not found else []
    elif (api, kind) in crds:
        found = [
            Problem(
                f"invalid {kind}: {_crd_message(data, e)}",
                "invalid-value",
                path=e.absolute_path,
            )
            for e in crds[(api, kind)].iter_errors(data)
        ]
    else:
        return None, [_unknown_kind(team, api, kind, version)]
    problems = [located(p, team.doc) for p in found]
    if problems:
        return None, problems
    if definition is None:  # a CRD's kind: namespaced unless its CRD says Cluster
        namespaced = not crds[(api, kind)].cluster_scoped
    else:
        namespaced = kind not in CLUSTER_SCOPED
    return TeamObject(team, kind, name, data, namespaced), []


# The kind makes the output file's name too (<name>.<kind>.yaml). A core kind is one, and
# the API server refuses a CRD whose kind, lower-cased, is no DNS-1035 label
# (apiextensions ValidateCustomResourceDefinitionNames), which nothing else checks here.
_KIND = re.compile(r"[A-Za-z](?:[-A-Za-z0-9]{0,61}[A-Za-z0-9])?")


def _not_a_kind(kind: str) -> str:
    return (
        f"'{shortened(printable(kind), 100)}' is not a kind: at most 63 letters, digits"
        " and '-', starting with a letter and ending with a letter or digit; the API"
        " server refuses a CRD of this kind"
    )


# k8s.io/apimachinery IsConfigMapKey: what a ConfigMap's data keys may be (the file
# names of a mounted ConfigMap), which no OpenAPI schema says.
_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]{1,253}")


def _config_keys(data: dict[str, Any]) -> list[Problem]:
    keys = [
        (field, key)
        for field in ("data", "binaryData")
        if isinstance(data.get(field), dict)
        for key in data[field]
        if not _CONFIG_KEY.fullmatch(str(key)) or key in (".", "..")
    ]
    return [
        Problem(
            f"'{shortened(str(key), 200)}' is not a ConfigMap key: at most 253"
            " letters, digits, '-', '_' or '.', and not '.' or '..'",
            "invalid-value",
            path=(field, key),
            at_key=True,
        )
        for field, key in keys
    ] + _in_both(data)


def _in_both(data: dict[str, Any]) -> list[Problem]:
    """binaryData's keys that data has too: the API server refuses the ConfigMap
    (ValidateConfigMap, "duplicate of key present in data"), both being one file."""
    text, binary = data.get("data"), data.get("binaryData")
    if not isinstance(text, dict) or not isinstance(binary, dict):
        return []
    named = {str(key) for key in text}
    return [
        Problem(
            f"'{shortened(str(key), 200)}' is a key of data too: a ConfigMap's key is"
            " in data or in binaryData, not both",
            "invalid-value",
            path=("binaryData", key),
            at_key=True,
            hint="keep it in one of them (binaryData for bytes that are not UTF-8)",
        )
        for key in binary
        if str(key) in named
    ]


def _crd_message(data: dict[str, Any], error: Any) -> str:
    """A CRD's error, never quoting a value under a secret's name."""
    if secret(data, tuple(error.absolute_path)):
        return unquoted(error.message, error.instance)
    return str(error.message)


def _at(team: TeamFile, path: tuple[str, ...], message: str, code: str) -> Problem:
    return located(Problem(message, code, path=path, at_key=bool(path)), team.doc)


def _secret(team: TeamFile) -> Problem:
    return located(
        Problem(
            "a Secret in resources/ would put its values in git",
            "resource-secret",
            path=("kind",),
            hint="create it in the cluster (an External Secret or a sealed secret's CRD) and refer to it by name",
        ),
        team.doc,
    )


def _unknown_kind(team: TeamFile, api: str, kind: str, version: str) -> Problem:
    return located(
        Problem(
            f"kgen cannot check a {kind} of {api}: it is no core kind of Kubernetes {version} and no CRD of the project",
            "resource-unknown-kind",
            path=("kind",),
            hint="list its CustomResourceDefinition under kgen.yaml crds:, or fix apiVersion",
        ),
        team.doc,
    )
