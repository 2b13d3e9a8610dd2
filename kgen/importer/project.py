"""Write what `kgen import` read as a project: one spec per job name (what its inputs
share) and an overlay per input (the difference), an environment per input folder."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from kgen.errors import DataPath
from kgen.importer.beside import crd_files, env_name, resources_files
from kgen.importer.jobs import Imported, ImportResult
from kgen.merge.layers import NAMED_LISTS
from kgen.merge.named import PATCH_DIRECTIVE
from kgen.output.import_folder import check_inside, write_all


def overlay_patch(base: Any, variant: Any, path: DataPath = ()) -> Any:
    """The overlay that turns `base` into `variant` under kgen's merge rules."""
    if isinstance(base, dict) and isinstance(variant, dict):
        patch: dict[str, Any] = {}
        for key in base.keys() | variant.keys():
            if key not in variant:
                patch[key] = None
            elif key not in base:
                patch[key] = variant[key]
            elif base[key] != variant[key]:
                patch[key] = overlay_patch(base[key], variant[key], (*path, key))
        return dict(sorted(patch.items()))
    if (
        isinstance(base, list)
        and isinstance(variant, list)
        and path
        and path[-1] in NAMED_LISTS
    ):
        key = NAMED_LISTS[str(path[-1])]
        names = {item.get(key) for item in variant}
        changed = [item for item in variant if item not in base]
        deleted = [
            {key: item[key], PATCH_DIRECTIVE: "delete"}
            for item in base
            if item.get(key) not in names
        ]
        if all(item.get(key) is not None for item in [*base, *variant]):
            return changed + deleted
    return copy.deepcopy(variant)


def common_spec(specs: list[dict[str, Any]]) -> dict[str, Any]:
    """The part of several specs that all share (recursively for mappings)."""
    first, rest = specs[0], specs[1:]
    out = {}
    for key, value in first.items():
        values = [s.get(key) for s in rest]
        if all(v == value for v in values):
            out[key] = value
        elif isinstance(value, dict) and all(isinstance(v, dict) for v in values):
            inner = common_spec([value, *values])  # type: ignore[list-item]
            if inner:
                out[key] = inner
    return out


def write_project(result: ImportResult, out: Path) -> list[str]:
    """Write kgen.yaml, jobs/ and overlays/ for the imported jobs; the files written."""
    from kgen.output.emitter import dump_plain

    files: dict[str, Any] = {}
    environments: dict[str, dict[str, Any]] = {}
    by_name: dict[str, list[tuple[str, Imported]]] = {}
    for job in result.jobs:
        env = env_name(job.file)
        settings = environments.setdefault(
            env, {"overlays": [], "namespace": job.namespace}
        )
        if job.target not in settings["overlays"]:
            settings["overlays"].append(job.target)
            files[f"overlays/{job.target}.yaml"] = {"target": job.target}
        by_name.setdefault(job.spec["name"], []).append((env, job))
    for name, variants in by_name.items():
        specs, own = _own_patches([job.spec for _, job in variants])
        base = specs[0] if len(specs) == 1 else common_spec(specs)
        files[f"jobs/{name}.yaml"] = base
        for (env, _), spec, kept in zip(variants, specs, own, strict=True):
            patch = overlay_patch(base, spec) if len(specs) > 1 else {}
            if patch or kept:
                overlay = f"{env}-{name}"
                files[f"overlays/{overlay}.yaml"] = (
                    {"match": {"names": [name]}}
                    | ({"patch": patch} if patch else {})
                    | ({"patches": kept} if kept else {})
                )
                environments[env]["overlays"].insert(0, overlay)
    env_of = {obj.file: env_name(obj.file) for obj in result.objects}
    for obj in result.objects:
        # An environment of objects only: its folder of resources/ needs one.
        environments.setdefault(env_of[obj.file], {"overlays": [], "namespace": None})
    namespaces = {env: s["namespace"] for env, s in environments.items()}
    files |= resources_files(result.objects, env_of, namespaces)
    crds = crd_files(result.objects, files)
    all_names = sorted(by_name)
    for env, settings in environments.items():
        mine = sorted(
            n for n, variants in by_name.items() if any(e == env for e, _ in variants)
        )
        if mine != all_names:
            settings["jobs"] = {"names": mine}
    project: dict[str, Any] = {}
    mounted = [v for job in result.jobs for v in _all_volumes(job.spec)]
    external = sorted(
        {v["claim"] for v in mounted if "claim" in v and "create" not in v}
    )
    if external:
        project["externalClaims"] = external
    if crds:
        project["crds"] = crds
    project["environments"] = {e: _environment(s) for e, s in environments.items()}
    check_inside(out, list(files))  # a name like ../../x would write outside `out`
    texts = {
        path: _header(path) + dump_plain(body).encode()
        for path, body in {"kgen.yaml": project, **files}.items()
    }
    write_all(out, texts)
    return list(texts)


def _own_patches(
    specs: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[list[Any]]]:
    """What each input kept as patches (kgen.importer.leftover) stays in the job's spec
    when all its inputs keep the same, else goes to each input's own overlay, whose
    `patches:` apply after the job's: the specs, and each input's own patches."""
    kept = [spec.get("patches") or [] for spec in specs]
    if all(k == kept[0] for k in kept):
        return specs, [[] for _ in specs]
    return [{k: v for k, v in s.items() if k != "patches"} for s in specs], kept


def _header(path: str) -> bytes:
    if path.startswith("resources/"):
        return b"# Imported by kgen import.\n"  # a Kubernetes object, not a kgen file
    schema = {"kgen.yaml": "schemas/kgen-project.schema.json"}.get(path) or (
        "../schemas/kgen-job.schema.json"
        if path.startswith("jobs/")
        else "../schemas/kgen-overlay.schema.json"
    )
    return f"# yaml-language-server: $schema={schema}\n# Imported by kgen import.\n".encode()


def _environment(settings: dict[str, Any]) -> dict[str, Any]:
    out = {"overlays": settings["overlays"]}
    if settings["namespace"]:
        out["namespace"] = settings["namespace"]
    return out | ({"jobs": settings["jobs"]} if "jobs" in settings else {})


def _all_volumes(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return list(spec.get("volumes") or [])
