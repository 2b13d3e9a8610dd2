"""CRDs a project adds (kgen.yaml `crds:` or `--crd`) for its cluster's exact operator
version: their schemas check the rendered objects too, unknown fields as errors (the API
server prunes them from a structural CRD without a word).

A CRD file is input like any other (kgen.load.files): a regular file inside the
project. Its schema is compiled offline: a `$ref` resolves only inside the schema,
nothing is ever retrieved (a `$ref: http://...` would open a connection, and
`file:///...` read any file on the machine). Kubernetes accepts no `$ref` in a CRD at
all (kubernetes/kubernetes#54579). Patterns run on a linear-time regex engine, as the
API server's RE2 does, so no pattern can make a check take exponential time.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kgen.check.cel_crds import rule_errors, rule_problems
from kgen.check.cel_rules import RuleTree, rule_tree
from kgen.check.crd_cost import DATA_KEYWORDS, NAME_KEYWORDS, resolve, too_complex
from kgen.check.crd_strict import strict_schema
from kgen.check.schema_error import SchemaError as SchemaError
from kgen.check.schema_words import rs_worded
from kgen.errors import DataPath, Problem, shortened
from kgen.flow_style import flow_style
from kgen.load.document import Document
from kgen.load.files import read_input
from kgen.load.yaml import load_bytes

CrdKey = tuple[str, str]
_REF_HINT = (
    "kgen never retrieves a schema, and Kubernetes accepts no $ref in a CRD;"
    " write the schema out"
)


def load_crd_schemas(
    root: Path, paths: list[str]
) -> tuple[dict[CrdKey, CrdValidator], list[Problem], dict[str, bytes]]:
    """Validators by (apiVersion, kind), the problems, and each file's bytes as read."""
    validators: dict[CrdKey, CrdValidator] = {}
    problems: list[Problem] = []
    read: dict[str, bytes] = {}
    for name in dict.fromkeys(paths):  # a file in kgen.yaml and --crd is read once
        reading = read_input(root / name, name, root=root)
        if reading.raw is None:
            problems += [reading.problem] if reading.problem else []
            continue
        read[name] = reading.raw
        doc, errors = load_bytes(reading.raw, name)
        problems += errors
        if doc is not None:
            found, errors = _validators(doc)
            validators |= found
            problems += errors
    return validators, problems, read


def _validators(doc: Document) -> tuple[dict[CrdKey, CrdValidator], list[Problem]]:
    schemas = list(_schemas(doc.data))
    if not schemas:
        problem = Problem(
            "not a CustomResourceDefinition with a schema",
            "invalid-value",
            file=doc.file,
            line=1,
            column=1,
        )
        return {}, [problem]
    validators: dict[CrdKey, CrdValidator] = {}
    problems: list[Problem] = []
    scope = _mapping(doc.data["spec"]).get("scope", "Namespaced")
    if scope not in ("Namespaced", "Cluster"):
        # apiextensions-apiserver validation.go: `spec.scope: Unsupported value`; its
        # objects would be checked as namespaced, for a CRD no cluster takes.
        message = f"scope {flow_style(scope)} is no CRD scope: the API server takes Namespaced or Cluster"
        hint = "write scope: Namespaced, or Cluster for a kind whose objects have no namespace"
        return {}, [
            doc.problem_at(("spec", "scope"), message, "invalid-value", hint=hint)
        ]
    for key, schema, where in schemas:
        refused = _bad_ref(schema, where, doc) or _too_complex(schema, where, doc)
        compiled = _compile(schema, where, doc) if refused is None else refused
        if isinstance(compiled, Problem):
            problems.append(compiled)
        else:
            validators[key] = compiled
            compiled.cluster_scoped = (
                _mapping(doc.data["spec"]).get("scope") == "Cluster"
            )
            problems += rule_problems(doc, compiled.rules)
    return validators, problems


def defined_kinds(crd: Any) -> set[CrdKey]:
    """The (apiVersion, kind) of each served version `crd` defines with a schema, which
    kgen checks objects of once the CRD is listed under kgen.yaml crds:."""
    return {key for key, _schema, _where in _schemas(crd)}


def _schemas(crd: Any) -> Iterator[tuple[CrdKey, dict[str, Any], DataPath]]:
    """Each served version's (apiVersion, kind), schema and where the schema is;
    nothing for what does not have a CRD's shape."""
    if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
        return
    spec = _mapping(crd.get("spec"))
    group, kind = spec.get("group"), _mapping(spec.get("names")).get("kind")
    if not isinstance(group, str) or not isinstance(kind, str):
        return
    shared: DataPath = (
        "spec",
        "validation",
        "openAPIV3Schema",
    )  # apiextensions v1beta1
    versions = spec.get("versions")
    if not isinstance(versions, list):
        versions = [{"name": spec.get("version")}]
    for index, version in enumerate(versions):
        version = _mapping(version)
        name = version.get("name")
        where: DataPath = ("spec", "versions", index, "schema", "openAPIV3Schema")
        schema = _mapping(version.get("schema")).get("openAPIV3Schema")
        if not schema:
            schema, where = (
                _mapping(spec.get("validation")).get("openAPIV3Schema"),
                shared,
            )
        if isinstance(name, str) and isinstance(schema, dict) and schema:
            yield (f"{group}/{name}", kind), schema, where


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _bad_ref(schema: dict[str, Any], where: DataPath, doc: Document) -> Problem | None:
    """The first `$ref` that leaves the schema or points at nothing in it, or the first
    `$id`, which would make a `$ref` under it mean another document."""
    for path, key, ref in _refs(schema, where):
        if key == "$id":
            message = "$id names this schema another document; kgen resolves references only inside this one"
        elif not ref.startswith("#"):
            message = f"$ref '{shortened(ref, 100)}' points outside this CRD; kgen resolves references only inside it"
        elif resolve(schema, ref) is None:
            message = f"$ref '{shortened(ref, 100)}' points to nothing in this schema"
        else:
            continue
        return doc.problem_at(path, message, "invalid-value", hint=_REF_HINT)
    return None


def _refs(
    value: Any, path: DataPath, *, names: bool = False
) -> Iterator[tuple[DataPath, str, str]]:
    """Every `$ref` and `$id` in a schema (path, keyword, value), but none in data
    (`default`, `enum`) nor a property merely named so."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not names and key in ("$ref", "$id") and isinstance(item, str):
                yield (*path, key), key, item
            elif names or key not in DATA_KEYWORDS:
                inner = not names and key in NAME_KEYWORDS
                yield from _refs(item, (*path, key), names=inner)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _refs(item, (*path, index))


def _too_complex(
    schema: dict[str, Any], where: DataPath, doc: Document
) -> Problem | None:
    found = too_complex(schema, where)
    if found is None:
        return None
    return doc.problem_at(
        found.path,
        f"this CRD's schema is too complex: {found.reason}",
        "invalid-value",
        hint="checking an object against it would take too long; write the schema out"
        " without $ref (Kubernetes accepts none), as the cluster serves it"
        " (kubectl get crd <name> -o yaml)",
    )


def _compile(
    schema: dict[str, Any], where: DataPath, doc: Document
) -> CrdValidator | Problem:
    import jsonschema_rs

    try:
        compiled = jsonschema_rs.Draft7Validator(
            strict_schema(schema),
            validate_formats=False,
            offline=True,
            pattern_options=jsonschema_rs.RegexOptions(),
        )
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError) as exc:
        inside = tuple(getattr(exc, "instance_path", ()))
        reason = shortened(str(exc).split("\n", 1)[0], 200)
        return doc.problem_at(
            (*where, *inside),
            f"this CRD's schema cannot be used: {reason}",
            "invalid-value",
            hint="fix the schema; the API server would refuse this CRD",
        )
    return CrdValidator(compiled, rule_tree(schema, where), schema=schema)


class CrdValidator:
    """A compiled CRD schema with the `iter_errors` of a jsonschema validator, which
    yields the first error only, but for unknown fields: after those, the first error
    of the object without them, so each unknown field is named in one run.

    jsonschema-rs builds every error before it returns the first, and a user's schema
    makes as many as it likes for one wrong value: a 2-branch `anyOf` over 10,000 env
    entries is 10,000 errors and seconds of work, an `allOf` of 5,000 schemas 5,000.
    The first error says the object is refused, and where; it costs one check, and
    each unknown field one more (the caller reads at most kgen.check.output's
    MAX_ERRORS).
    """

    def __init__(
        self,
        compiled: Any,
        rules: RuleTree | None = None,
        *,
        schema: dict[str, Any] | None = None,
    ) -> None:
        self.compiled = compiled
        # As written: which keys it declares (kgen.check.declared).
        self.schema = schema
        # The CEL rules (x-kubernetes-validations), which run on a valid object.
        self.rules = rules
        # The CRD's `scope: Cluster`: its objects have no namespace (kgen.resources).
        self.cluster_scoped = False

    def iter_errors(self, instance: Any) -> Iterator[SchemaError]:
        import jsonschema_rs

        pruned = None  # a copy without the unknown fields found so far
        while True:
            try:
                self.compiled.validate(instance if pruned is None else pruned)
            except jsonschema_rs.ValidationError as exc:
                error = _schema_error(exc)
                yield error
                if error.validator != "additionalProperties":
                    return
                if pruned is None:
                    pruned = copy.deepcopy(instance)
                if not _drop_unknown(pruned, error):
                    return
                continue
            break
        if pruned is None:
            for path, message, value in rule_errors(self.rules, instance):
                yield SchemaError(path, "x-kubernetes-validations", value, {}, message)


def _drop_unknown(body: Any, error: SchemaError) -> bool:
    """Remove from `body` the fields `error` names unknown; whether there were any."""
    for part in error.absolute_path:
        body = body[part]
    unknown = set(error.instance) - set(error.schema["properties"])
    for key in unknown:
        del body[key]
    return bool(unknown)


def _schema_error(error: Any) -> SchemaError:
    unexpected = getattr(error.kind, "unexpected", None)
    path = tuple(error.instance_path)
    if isinstance(error.instance, dict) and isinstance(unexpected, list):
        # Named by what the schema knows, as jsonschema's own errors are.
        known = {k: True for k in error.instance if k not in unexpected}
        return SchemaError(
            path,
            "additionalProperties",
            error.instance,
            {"properties": known},
            error.message,
        )
    return SchemaError(
        path, "", error.instance, {}, rs_worded(error.message, error.instance)
    )
