"""`kgen import`, what the spec fields cannot say: the imported spec is rendered for its
target (the render the build uses), compared with the input object, and what the input
has that the render lacks becomes a strategic-merge patch in the spec's `patches:`
(docs/patches.md), so `kgen build` gives the same object back. Each field kept that way
is reported at the input's line (`import-as-patch`); what no patch can place (the
cluster's status, server-set metadata) is reported too (`import-dropped`). Never a
value: a field under a secret's name is named, not quoted.

What the render adds that the input lacks (kgen's defaults, the operator's port) is no
patch: the operator would fill most of it in anyway.
"""

from __future__ import annotations

from typing import Any

from kgen.errors import DataPath, Problem, format_path, printable
from kgen.importer.controls import control_problems
from kgen.importer.difference import SAME, Leftover, field_name
from kgen.importer.replay import not_kept, patches_of
from kgen.load.document import Document

# Set by the API server on every object, never by whoever wrote the manifest
# (k8s.io/apimachinery pkg/apis/meta/v1 types.go, ObjectMeta, tag v0.31.0).
SERVER_SET = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
)
# Labels kgen writes itself (kgen.render.base, kgen.render.job), and the namespace, which
# the imported environment sets.
OWN_LABELS = ("app.kubernetes.io/managed-by", "kgen.io/job")
# Inputs are hostile: at most this many fields reported one by one (the rest counted).
MAX_REPORTED = 100


def kept_as_patches(
    doc: Document,
    spec: dict[str, Any],
    env: tuple[str, str | None],
    found: list[Problem],
    beside: dict[tuple[str, str], Document] | None = None,
) -> tuple[list[dict[str, Any]], list[Problem], int]:
    """The `patches:` entries that keep what of `doc`'s object, and of the objects
    `beside` it the job renders (its claims, its TensorBoard; by kind and name), `spec`
    does not render for `env` (target, namespace); `found` (what the import reported)
    and the problems that say what was kept and what could not be; and the number of
    fields kept.

    What the import could not express and reported (`import-unsupported` at a path) is
    withdrawn when the patch keeps it."""
    what = _what(doc.data)
    problems = [*found, *_dropped(doc, what)]
    rendered = rendered_objects(spec, *env)
    if rendered is None:
        # The import's own error says why; else the build will, and this says what
        # was not looked at until then.
        problems += control_problems(doc, spec)
        if any(p.severity == "error" for p in problems):
            return [], problems, 0
        message = f"{what} was not compared with its render, as the imported spec does not validate: fields no spec field says may be missing"
        hint = "run `kgen validate` on the imported project, fix the input and import again"
        return [], [*problems, _problem(doc, (), message, "import-unchecked", hint)], 0
    patches, problems, count = _kept_for(
        doc, rendered[0], None, problems, by_position=_by_position(spec, env[0])
    )
    problems += control_problems(doc, [spec, patches])
    for body in rendered[1:]:
        target = {"kind": str(body.get("kind")), "name": body["metadata"]["name"]}
        other = (beside or {}).get((target["kind"], target["name"]))
        if other is None:
            continue
        problems += _dropped(other, _what(other.data))
        more, problems, n = _kept_for(other, body, target, problems)
        patches, count = patches + more, count + n
    return patches, problems, count


def _by_position(spec: dict[str, Any], target: str) -> bool:
    """Whether the job's operator takes its pods' first container whatever its name."""
    from kgen.kinds import kind_for

    return kind_for(spec["framework"], target).first_container


def _what(data: dict[str, Any]) -> str:
    return f"{data.get('kind')} {printable(str(data['metadata']['name']))}"


def _kept_for(
    doc: Document,
    rendered: dict[str, Any],
    target: dict[str, str] | None,
    problems: list[Problem],
    *,
    by_position: bool = False,
) -> tuple[list[dict[str, Any]], list[Problem], int]:
    """The patches that keep what `doc`'s object has beyond `rendered` (the object
    `target` selects; the job's own without one). With `by_position` (an operator that
    takes the first container whatever its name), that container's own name is kept
    without a word: the name makes no difference to the job."""
    data, what = doc.data, _what(doc.data)
    leftover = Leftover()
    given = _comparable(data)
    merge = leftover.extra(given, rendered, ())
    if merge is SAME and not leftover.renames:
        return [], problems, 0
    patches = patches_of(leftover.renames, {} if merge is SAME else merge)
    refused = not_kept(patches, rendered, given)
    if refused is not None:
        why, at = refused
        at = at or leftover.places[0]  # the first field it would have kept
        message = f"cannot keep what this {what} has beyond the spec as a patch: {why}"
        hint = "add it by hand after import, or leave it out"
        problem = _problem(doc, at, message, "import-unsupported", hint)
        return [], [*problems, problem], 0
    problems = [p for p in problems if not _kept(p, leftover.places)]
    places = [p for p in leftover.places if not (by_position and _first_name(p))]
    for path in places[:MAX_REPORTED]:
        problems.append(
            _problem(
                doc,
                path,
                f"{what}: {field_name(data, path)} has no job spec field; kept as a patch",
                "import-as-patch",
                "kgen build renders it through `patches:` (docs/patches.md); move it to a spec field if one comes",
            )
        )
    if len(places) > MAX_REPORTED:
        rest = len(places) - MAX_REPORTED
        problems.append(
            _problem(
                doc,
                places[MAX_REPORTED],
                f"{what}: {rest:,} more fields kept as a patch, from here on",
                "import-as-patch",
                None,
            )
        )
    if target is not None:
        patches = [{"target": target, **patch} for patch in patches]
    return patches, problems, len(places)


def _first_name(place: DataPath) -> bool:
    """`place` is the name of a pod's first container: a rename (kgen.importer.difference
    names a container by the whole item otherwise)."""
    return place[-3:] == ("containers", 0, "name")


def keeps(doc: Document, rendered: dict[str, Any]) -> bool:
    """Whether patches can give `doc`'s object back from `rendered` (the object the
    imported spec renders in its place)."""
    leftover = Leftover()
    given = _comparable(doc.data)
    merge = leftover.extra(given, rendered, ())
    if merge is SAME and not leftover.renames:
        return True
    patches = patches_of(leftover.renames, {} if merge is SAME else merge)
    return not_kept(patches, rendered, given) is None


def _kept(problem: Problem, places: list[DataPath]) -> bool:
    """`problem` says the import left out something the patch keeps."""
    if problem.code != "import-unsupported" or not problem.path:
        return False
    at = problem.path
    return any(place[: len(at)] == at or at[: len(place)] == place for place in places)


def _comparable(data: dict[str, Any]) -> dict[str, Any]:
    """The input object without what a patch cannot or need not place."""
    out = {k: v for k, v in data.items() if k != "status"}
    meta = {
        k: v
        for k, v in (data.get("metadata") or {}).items()
        if k not in SERVER_SET and k != "namespace"
    }
    if isinstance(meta.get("labels"), dict):
        meta["labels"] = {
            k: v for k, v in meta["labels"].items() if k not in OWN_LABELS
        }
    out["metadata"] = {k: v for k, v in meta.items() if v not in ({}, None)}
    return out


def _dropped(doc: Document, what: str) -> list[Problem]:
    data = doc.data
    meta = data.get("metadata") or {}
    places: list[DataPath] = [("status",)] if "status" in data else []
    places += [("metadata", k) for k in SERVER_SET if k in meta]
    return [
        _problem(
            doc,
            path,
            f"{what}: {format_path(path)} is the cluster's, not the manifest's; not imported",
            "import-dropped",
            "the API server sets it again when the job is applied",
        )
        for path in places
    ]


def rendered_objects(
    spec: dict[str, Any], target: str, namespace: str | None
) -> list[dict[str, Any]] | None:
    """The objects `kgen build` renders from the imported spec (the job's own first),
    before patches."""
    from kgen.kinds import foreign_sections, kind_for
    from kgen.kinds.targets import TARGETS
    from kgen.render.base import Environment
    from kgen.render.job import render_job
    from kgen.spec.validate import validate_model

    if target not in TARGETS:
        return None
    merged, _ = foreign_sections(spec, target)
    model, _ = validate_model(kind_for(spec["framework"], target).model(), merged)
    if model is None:
        return None
    objects, _ = render_job(model, Environment("import", TARGETS[target], namespace))
    return [obj.body for obj in objects]


def _problem(
    doc: Document, path: DataPath, message: str, code: str, hint: str | None
) -> Problem:
    origin = doc.origin(path)
    return Problem(
        message,
        code,
        file=origin.file,
        line=origin.key_line,
        column=origin.key_column,
        hint=hint,
        severity="error" if code == "import-unsupported" else "warning",  # catalogue
    )
