"""The JSON Schemas in schemas/: current, valid against the draft each names, self-contained
(every `$ref` resolves inside its file), and they accept what kgen accepts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from jsonschema import Draft7Validator

from kgen.reference.schemas import (
    all_schemas,
    dump,
    job_schema,
    overlay_schema,
    project_schema,
)
from tests.conftest import REPO, RunKgen

EDITOR = {
    "kgen-job.schema.json": job_schema,
    "kgen-overlay.schema.json": overlay_schema,
    "kgen-project.schema.json": project_schema,
}
CASES = REPO / "tests" / "cases" / "positive"


def test_committed_schemas_are_current(run_kgen: RunKgen):
    result = run_kgen("schema", "--out", str(REPO / "schemas"), "--check")
    assert result.code == 0, f"{result}\nrun `make schemas` and commit schemas/"
    committed = {p.name for p in (REPO / "schemas").glob("*.json")}
    assert committed == set(all_schemas())


def test_schema_check_reports_a_stale_file(tmp_path: Path, run_kgen: RunKgen):
    assert run_kgen("schema", "--out", str(tmp_path)).code == 0
    (tmp_path / "kgen-job.schema.json").write_text("{}\n")
    result = run_kgen("schema", "--out", str(tmp_path), "--check")
    assert (result.code, result.err.splitlines()[0]) == (
        1,
        f"modified: {tmp_path / 'kgen-job.schema.json'}",
    )


def test_schema_check_names_the_schemas_missing_in_a_new_project(
    tmp_path: Path, run_kgen: RunKgen
):
    # kgen init writes every schema kgen schema writes, so --check passes; a schema
    # deleted since is reported missing (absent), not stale (a file to remove).
    assert run_kgen("init", cwd=tmp_path).code == 0
    assert run_kgen("schema", "--check", cwd=tmp_path).code == 0
    gone = sorted(set(all_schemas()) - set(EDITOR))[:2]
    for name in gone:
        (tmp_path / "schemas" / name).unlink()
    result = run_kgen("schema", "--check", cwd=tmp_path)
    assert result.code == 1
    assert sorted(result.err.splitlines()[:-1]) == [
        f"missing: schemas/{name}" for name in gone
    ]
    assert result.err.splitlines()[-1] == (
        "kgen: generated files are out of date; run `kgen schema`"
    )


@pytest.mark.parametrize("name", sorted(EDITOR))
def test_editor_schemas_are_draft7(name: str):
    schema = EDITOR[name]()
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    Draft7Validator.check_schema(schema)
    assert "$defs" not in dump(schema), "draft-07 readers look in definitions"


def _files(pattern: str) -> list[Path]:
    return sorted([*REPO.glob(pattern), *CASES.glob(f"*/{pattern}")])


@pytest.mark.parametrize(
    ("schema_name", "path"),
    [("kgen-job.schema.json", p) for p in _files("jobs/*.yaml")]
    + [("kgen-overlay.schema.json", p) for p in _files("overlays/*.yaml")]
    + [
        ("kgen-project.schema.json", p)
        for p in [REPO / "kgen.yaml", *CASES.glob("*/kgen.yaml")]
    ],
    ids=lambda v: str(v.relative_to(REPO)) if isinstance(v, Path) else v,
)
def test_valid_inputs_pass_their_editor_schema(schema_name: str, path: Path):
    errors = [
        e.message
        for e in Draft7Validator(EDITOR[schema_name]()).iter_errors(
            yaml.safe_load(path.read_text())
        )
    ]
    assert errors == []


def test_editor_schemas_catch_typos():
    job = {"framework": "pytorch", "image": "x:1", "roles": {"master": {"replicas": 1}}}
    validator = Draft7Validator(job_schema())
    assert not list(validator.iter_errors(job))
    assert list(validator.iter_errors({**job, "imagePullPolicy": "always"}))
    assert list(
        validator.iter_errors({**job, "roles": {"master": {"replicas": 1, "gpus": 1}}})
    )
    patch = Draft7Validator(overlay_schema())
    assert not list(
        patch.iter_errors(
            {
                "patch": {
                    "env": [{"name": "A", "$patch": "delete"}],
                    "resources": {"gpu": None},
                }
            }
        )
    )
    assert list(patch.iter_errors({"patch": {"resources": {"gpus": 1}}}))


def test_repo_files_name_their_schema():
    for path in [
        *REPO.glob("jobs/*.yaml"),
        *REPO.glob("overlays/*.yaml"),
        REPO / "kgen.yaml",
    ]:
        first = path.read_text().splitlines()[0]
        match = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", first)
        assert match, f"{path.name} does not name its schema"
        assert (path.parent / match[1]).resolve().is_file()


# Usable by other tools (check-jsonschema, editors) as they are.
SCHEMAS = sorted((REPO / "schemas").glob("*.json"))
DRAFTS = {
    "http://json-schema.org/draft-07/schema#": jsonschema.Draft7Validator,
    "https://json-schema.org/draft/2020-12/schema": jsonschema.Draft202012Validator,
}


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for item in node for r in _refs(item)]
    return []


def _resolve(schema: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), f"{ref} leaves the file"
    node: Any = schema
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


@pytest.mark.parametrize("path", SCHEMAS, ids=[p.name for p in SCHEMAS])
def test_schema_follows_the_draft_it_names(path: Path):
    schema = json.loads(path.read_text())
    validator = DRAFTS[schema["$schema"]]
    validator.check_schema(schema)
    if validator is jsonschema.Draft7Validator:
        # Draft-07 keeps definitions under `definitions`; `$defs` would be ignored.
        assert "$defs" not in json.dumps(schema)


@pytest.mark.parametrize("path", SCHEMAS, ids=[p.name for p in SCHEMAS])
def test_every_ref_resolves_inside_the_file(path: Path):
    schema = json.loads(path.read_text())
    refs = set(_refs(schema))
    assert refs
    for ref in refs:
        _resolve(schema, ref)


def test_an_envelope_validates_a_committed_manifest_on_its_own():
    schema = json.loads((REPO / "schemas/pytorchjob-v1.schema.json").read_text())
    job = yaml.safe_load(
        (REPO / "manifests/dev-cpu/mnist-ddp.pytorchjob.yaml").read_text()
    )
    jsonschema.Draft202012Validator(schema).validate(job)
    job["spec"]["pytorchReplicaSpecs"]["Master"]["replicas"] = "one"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(job)


def test_schema_removes_what_an_earlier_release_generated(
    tmp_path: Path, run_kgen: RunKgen
):
    assert run_kgen("schema", "--out", str(tmp_path)).code == 0
    gone = tmp_path / "pytorchjob-training-operator-0.9.schema.json"
    gone.write_text("{}\n")
    mine = tmp_path / "my-team.json"
    mine.write_text("{}\n")
    other = tmp_path / "argo-workflow.schema.json"
    other.write_text("{}\n")
    check = run_kgen("schema", "--out", str(tmp_path), "--check")
    assert (check.code, check.err.splitlines()) == (
        1,
        [
            f"stale: {gone} (no longer generated)",
            "kgen: generated files are out of date; run `kgen schema`",
        ],
    )
    assert gone.exists()
    write = run_kgen("schema", "--out", str(tmp_path))
    assert (write.code, write.err) == (0, f"removed: {gone} (no longer generated)\n")
    assert not gone.exists() and mine.exists() and other.exists()
    assert run_kgen("schema", "--out", str(tmp_path), "--check").code == 0


def test_schema_leaves_a_link_named_like_a_schema_alone(
    tmp_path: Path, run_kgen: RunKgen
):
    assert run_kgen("schema", "--out", str(tmp_path)).code == 0
    target = tmp_path.parent / f"{tmp_path.name}-outside.json"
    target.write_text("{}\n")
    link = tmp_path / "tfjob-v0.schema.json"
    link.symlink_to(target)
    assert run_kgen("schema", "--out", str(tmp_path)).code == 0
    assert link.is_symlink() and target.read_text() == "{}\n"
