"""Output schemas kept in the cache folder (kgen.check.stored): what is read back is
what would be built, and anything else found there is built again."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from kgen.check import core, stored
from kgen.check.output import _fast_validator, fast_validator, job_schema
from kgen.check.stored import stored_schema, use_folder

KEY = ("test", "PyTorchJob", "v1", core.DEFAULT_KUBERNETES_VERSION)


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    before = stored._folder
    use_folder(tmp_path)
    yield tmp_path
    use_folder(before)


def built() -> dict[str, Any]:
    job_schema.cache_clear()
    use, stored._folder = stored._folder, None
    try:
        return job_schema("PyTorchJob", "v1", core.DEFAULT_KUBERNETES_VERSION)
    finally:
        stored._folder = use
        job_schema.cache_clear()


def test_a_stored_schema_is_the_one_built(folder: Path):
    expected = built()
    calls: list[int] = []

    def build() -> dict[str, Any]:
        calls.append(1)
        return expected

    assert stored_schema(KEY, build) == expected
    assert stored_schema(KEY, build) == expected
    assert calls == [1]  # the second came from the file
    (file,) = folder.glob("schema-*.json")
    assert json.loads(file.read_text())["value"] == expected
    # The output check's own schema: stored once, read back equal.
    job_schema.cache_clear()
    assert job_schema("PyTorchJob", "v1", core.DEFAULT_KUBERNETES_VERSION) == expected
    job_schema.cache_clear()
    assert job_schema("PyTorchJob", "v1", core.DEFAULT_KUBERNETES_VERSION) == expected
    job_schema.cache_clear()


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b'{"salt": "another kgen", "schema": {"type": "object"}}',
        b"[]",
        b'{"schema": {"type": "object"}}',
        b"",
    ],
    ids=["corrupt", "other-salt", "not-a-map", "no-salt", "empty"],
)
def test_what_another_kgen_or_a_corrupt_file_left_is_built_again(
    folder: Path, content: bytes
):
    stored_schema(KEY, lambda: {"type": "string"})
    (file,) = folder.glob("schema-*.json")
    file.write_bytes(content)
    assert stored_schema(KEY, lambda: {"type": "integer"}) == {"type": "integer"}
    # ...and stored again for the next run.
    assert stored_schema(KEY, lambda: {"type": "null"}) == {"type": "integer"}


def test_a_link_or_a_folder_in_its_place_is_never_read(folder: Path, tmp_path: Path):
    stored_schema(KEY, lambda: {"type": "string"})
    (file,) = folder.glob("schema-*.json")
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(file.read_bytes())
    file.unlink()
    file.symlink_to(elsewhere)
    assert stored_schema(KEY, lambda: {"type": "integer"}) == {"type": "integer"}
    file.unlink()
    file.mkdir()
    assert stored_schema(KEY, lambda: {"type": "null"}) == {"type": "null"}


def test_a_schema_that_is_not_plain_json_is_not_stored(folder: Path):
    # A tuple would come back a list: what is read back must equal what was built.
    assert stored_schema(KEY, lambda: {"enum": ("a",)}) == {"enum": ("a",)}
    assert list(folder.iterdir()) == []


def test_a_stored_file_is_its_salt_then_the_value(folder: Path):
    """The bytes _read looks for, and those every kgen so far wrote."""
    schema = {"type": "object", "properties": {"n": {"maximum": 2**63 - 1}}}
    assert stored_schema(KEY, lambda: schema) == schema
    path, salt = stored._place(folder, "schema", KEY)
    expected = json.dumps({"salt": salt, "value": schema}, separators=(",", ":"))
    assert path.read_bytes() == expected.encode()


def test_without_the_cache_a_schema_is_not_even_written_out(
    monkeypatch: pytest.MonkeyPatch,
):
    def refuse(*args: object, **kwargs: object) -> str:
        raise AssertionError("turned into JSON text for no cache")

    before = stored._folder
    use_folder(None)
    monkeypatch.setattr(json, "dumps", refuse)
    try:
        assert stored_schema(KEY, lambda: {"type": "string"}) == {"type": "string"}
    finally:
        use_folder(before)


def test_without_the_cache_nothing_is_kept(tmp_path: Path):
    before = stored._folder
    use_folder(None)
    try:
        assert stored_schema(KEY, lambda: {"type": "string"}) == {"type": "string"}
    finally:
        use_folder(before)
    assert os.listdir(tmp_path) == []


def test_a_run_without_the_cache_stores_no_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from kgen.load.project import load_project

    cache = tmp_path / "cache"
    monkeypatch.setenv("KGEN_CACHE_DIR", str(cache))
    root = tmp_path / "project"
    (root / "jobs").mkdir(parents=True)
    (root / "kgen.yaml").write_text("environments: {dev: {overlays: []}}\n")
    before = stored._folder
    try:
        load_project(root, use_cache=False)
        assert stored._folder is None
        load_project(root)
        assert stored._folder is not None and stored._folder.parent == cache
    finally:
        use_folder(before)


def test_a_stored_output_schema_is_compiled_from_its_text_not_parsed_in_python(
    folder: Path, monkeypatch: pytest.MonkeyPatch
):
    # Parsed in Python first, an output schema cost a third of compiling it, in every
    # run that checks a job of its kind and target (a one-spec validate: eight).
    version = core.DEFAULT_KUBERNETES_VERSION
    instances: list[Any] = [{}, {"kind": 5}, {"apiVersion": "kubeflow.org/v1"}]
    reference = jsonschema_rs.validator_for(built())
    _fast_validator.cache_clear()
    try:
        fast_validator("PyTorchJob", "v1", version)  # built and stored
        _fast_validator.cache_clear()
        job_schema.cache_clear()

        def refuse(*args: object, **kwargs: object) -> Any:
            raise AssertionError("parsed in Python")

        monkeypatch.setattr(json, "loads", refuse)
        validator = fast_validator("PyTorchJob", "v1", version)
    finally:
        _fast_validator.cache_clear()
        job_schema.cache_clear()
    assert validator is not None
    assert [validator.is_valid(i) for i in instances] == [
        reference.is_valid(i) for i in instances
    ]


@pytest.mark.parametrize(
    "value",
    [b'"type":}', b'"type":"integer"},"more":{}', b"}"],
    ids=["not-json", "trailing", "empty-object-cut"],
)
def test_stored_text_that_is_not_a_schema_is_built_again(folder: Path, value: bytes):
    stored_schema(KEY, lambda: {"type": "string"})
    path, salt = stored._place(folder, "schema", KEY)
    path.write_bytes(b'{"salt":"%s","value":{%s' % (salt.encode(), value))
    validator = core.compiled(KEY, lambda: stored_schema(KEY, lambda: {"type": "null"}))
    assert (validator.is_valid(None), validator.is_valid("a")) == (True, False)


def test_stored_text_of_no_object_is_not_compiled(folder: Path):
    # `true` is a schema that allows everything: only an object is taken as text.
    stored_schema(KEY, lambda: {"type": "string"})
    path, salt = stored._place(folder, "schema", KEY)
    path.write_bytes(b'{"salt":"%s","value":true}' % salt.encode())
    assert stored.stored_text(KEY) is None
    validator = core.compiled(KEY, lambda: stored_schema(KEY, lambda: {"type": "null"}))
    assert (validator.is_valid(None), validator.is_valid("a")) == (True, False)
