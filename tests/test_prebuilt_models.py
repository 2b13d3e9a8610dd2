"""Spec models completed from a kept core schema (kgen.spec.prebuilt) are the models
pydantic builds: the same schema, the same validator, the same messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from pydantic._internal._config import ConfigWrapper
from pydantic_core import SchemaValidator

from kgen.check import stored
from kgen.check.stored import read_json, use_folder
from kgen.kinds import KINDS
from kgen.spec import prebuilt
from kgen.spec.base import SpecModel
from kgen.spec.project import OverlaySpec, ProjectSpec
from kgen.spec.schema_codec import decoded, encode, references
from tests.conftest import REPO
from tests.kept_models import complete_from_kept_schemas, spec_models

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import generate

# What each model is given: a valid input and wrong ones of every kind the spec
# language refuses (unknown keys, wrong types, limits, one-of, named values).
INPUTS: list[Any] = [
    {},
    {"name": "a", "framework": "pytorch", "image": "x", "replicaz": 1},
    {"name": 7, "framework": "pytorch", "image": ["x"], "resources": {"gpu": -1}},
    {"environments": {"dev": ["cpu", "../up"]}, "jobNames": "hash"},
    {"environments": {}, "crds": "x", "kubernetesVersion": "0.1"},
    {"environments": {"a" * 70: {"overlays": []}}},
    {"target": "v9", "patches": [{"op": "nope"}], "match": {"frameworks": ["x"]}},
    {"env": [{"name": "A", "valueFrom": {}}], "volumes": [{"name": "v"}]},
    {"roles": {"worker": {"replicas": "2"}}, "runPolicy": {"backoffLimit": -3}},
    {
        "tensorboard": {"logDir": 1},
        "elasticPolicy": {"minReplicas": 3, "maxReplicas": 1},
    },
]


def models() -> list[type[SpecModel]]:
    return [ProjectSpec, OverlaySpec, *(kind.model() for kind in KINDS.values())]


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    before = stored._folder
    use_folder(tmp_path)
    yield tmp_path
    use_folder(before)


def errors(validate: Any, data: Any) -> list[dict[str, Any]] | str:
    try:
        validate(data)
    except ValidationError as exc:
        return json.loads(exc.json(include_url=False))
    return "valid"


@pytest.mark.parametrize("model", models(), ids=lambda m: m.__qualname__)
def test_a_kept_schema_reads_back_as_the_one_pydantic_made(
    folder: Path, model: type[SpecModel]
):
    model.model_rebuild()  # complete, as a run would, before it is kept
    prebuilt.keep(model)
    found = read_json(*prebuilt._names(model), object_hook=decoded)
    # Every model is kept (none holds an object that cannot be found again), and what
    # is read back is pydantic's schema, each Python object in it the very one.
    assert isinstance(found, dict)
    refs = references(model.__pydantic_core_schema__, model)
    made = encode(model.__pydantic_core_schema__, refs)
    assert encode(found, refs) == made
    # A validator compiled from it refuses every input with the same errors as the
    # model's own.
    config = ConfigWrapper(model.model_config).core_config(title=model.__name__)
    again = SchemaValidator(found, config)
    for data in INPUTS:
        assert errors(again.validate_python, data) == errors(model.model_validate, data)


def test_every_spec_model_is_kept_and_the_suite_uses_the_kept_ones():
    assert complete_from_kept_schemas() == []
    assert len(spec_models()) > 40
    # conftest completed them from kept schemas: the suite's messages come from those.
    assert all(m.__pydantic_complete__ for m in spec_models())


def test_a_kept_schema_that_does_not_fit_builds_as_usual(folder: Path):
    class Probe(SpecModel):
        value: int = 0

    name, key = prebuilt._names(Probe)
    salt_of = stored._place(folder, name, key)
    bogus = {"type": "model", "cls": {"\x00name": ["os", "system"]}}
    (folder / salt_of[0].name).write_text(
        json.dumps({"salt": salt_of[1], "value": bogus}, separators=(",", ":"))
    )
    assert prebuilt.complete(Probe) is False
    for named in (["no.such.module", "x"], ["kgen.spec.base", "no_such_name"]):
        bogus["cls"] = {"\x00name": named}
        (folder / salt_of[0].name).write_text(
            json.dumps({"salt": salt_of[1], "value": bogus}, separators=(",", ":"))
        )
        assert prebuilt.complete(Probe) is False
    assert Probe.model_validate({"value": 3}).value == 3  # built as pydantic does


COUNTING = """
import sys
from kgen.spec import prebuilt, base
used = []
def complete(cls):
    done = prebuilt.complete(cls)
    used.append(done)
    return done
base.complete = complete
sys.argv = ["kgen", *sys.argv[1:]]
from kgen.__main__ import main
code = main()
sys.stderr.write(f"\\nprebuilt {sum(used)}\\n")
sys.exit(code)
"""


def test_validate_says_the_same_with_models_from_the_cache(tmp_path: Path):
    root = tmp_path / "project"
    generate(root, 3)
    spec = root / "jobs" / "job-00001.yaml"
    spec.write_text(spec.read_text() + "replicaz: 3\nrunPolicy: {backoffLimit: -1}\n")
    env = {**os.environ, "NO_COLOR": "1", "KGEN_CACHE_DIR": str(tmp_path / "cache")}
    # Named, so that every job is validated and rendered (a run over everything would
    # take the valid ones' renders from the cache).
    jobs = sorted(str(p.relative_to(root)) for p in (root / "jobs").iterdir())
    runs = [
        subprocess.run(
            [sys.executable, "-c", COUNTING, "validate", *jobs],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
        )
        for _ in range(2)
    ]
    (first, first_used), (second, second_used) = (
        (r, r.stderr.rsplit("\nprebuilt ", 1)) for r in runs
    )
    assert first.returncode == second.returncode == 1
    assert "replicaz" in first_used[0]
    assert (first.stdout, first_used[0]) == (second.stdout, second_used[0])
    # The first run built and kept the models; the second completed from the cache
    # kgen.yaml's, the overlays' and each job kind's.
    assert first_used[1].strip() == "0"
    frameworks = {yaml_framework(root / job) for job in jobs}
    assert int(second_used[1]) >= 2 + len(frameworks)


def yaml_framework(path: Path) -> str:
    return next(
        line.split(":", 1)[1].strip()
        for line in path.read_text().splitlines()
        if line.startswith("framework:")
    )


@pytest.mark.parametrize(
    "tail",
    [b'"value":{"type":"model"', b'"value":[]}', b'"value":{"\\u0000at":[["x","y"]]}}'],
    ids=["truncated", "not-a-schema", "a-path-to-nowhere"],
)
def test_a_damaged_kept_schema_is_built_again(folder: Path, tail: bytes):
    model = OverlaySpec
    model.model_rebuild()
    prebuilt.keep(model)
    path, salt = stored._place(folder, *prebuilt._names(model))
    path.write_bytes(b'{"salt":"%s",' % salt.encode() + tail)
    assert prebuilt.complete(model) is False
