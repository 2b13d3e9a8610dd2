"""A user CRD's schema is measured as a validator would walk it, every `$ref` followed,
and refused past a bound at the place that grows too much; the upstream operators'
CRDs, the largest real ones, are far inside every bound and measured in milliseconds."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from kgen.check.crd_cost import MAX_ALTERNATIVES, MAX_REFS, MAX_SCHEMAS, too_complex
from kgen.check.crds import _schemas, load_crd_schemas
from kgen.errors import shortened
from tests.conftest import SHARED

CRDS = SHARED / "crds"
WHERE = ("spec", "versions", 0, "schema", "openAPIV3Schema")


def _chain(levels: int, width: int) -> dict[str, Any]:
    defs: dict[str, Any] = {
        f"d{i}": {"anyOf": [{"$ref": f"#/definitions/d{i + 1}"}] * width}
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "string"}
    return {"definitions": defs, "$ref": "#/definitions/d0"}


def test_a_chain_of_anyofs_is_refused_at_the_reference_that_expands_it():
    found = too_complex(_chain(16, 2), WHERE)
    assert found is not None
    assert found.path == (*WHERE, "$ref")
    assert found.reason == (
        "with every $ref followed, it holds more than 1,000 schemas under anyOf or oneOf"
    )


def test_measuring_stops_at_the_bound_whatever_the_schema_expands_to():
    start = time.perf_counter()
    assert too_complex(_chain(60, 10), WHERE) is not None  # 10^60 schemas
    assert time.perf_counter() - start < 0.5


def test_alternatives_written_out_are_counted_as_those_behind_references():
    def tree(levels: int) -> dict[str, Any]:
        return {"type": "string"} if not levels else {"anyOf": [tree(levels - 1)] * 2}

    assert too_complex(tree(8), WHERE) is None  # 510 schemas under anyOf
    found = too_complex({"properties": {"a": tree(10)}}, WHERE)
    assert found is not None and found.path == (*WHERE, "properties", "a", "anyOf")


def test_every_bound_has_its_message():
    plain = {"properties": {f"p{i}": {"type": "string"} for i in range(MAX_SCHEMAS)}}
    flat = {
        "definitions": {"x": {"type": "string"}},
        "properties": {
            f"p{i}": {"$ref": "#/definitions/x"} for i in range(MAX_REFS + 1)
        },
    }
    reasons = [too_complex(s, WHERE) for s in (plain, flat)]
    assert [r.reason if r else None for r in reasons] == [
        f"with every $ref followed, it holds more than {MAX_SCHEMAS:,} schemas",
        f"with every $ref followed, it holds more than {MAX_REFS:,} references",
    ]
    assert MAX_ALTERNATIVES == 1_000


def test_a_reference_back_into_itself_is_walked_once():
    recursive = {
        "definitions": {
            "node": {
                "type": "object",
                "properties": {
                    "a": {"$ref": "#/definitions/node"},
                    "b": {"anyOf": [{"$ref": "#/definitions/node"}, {"$ref": "#"}]},
                },
            }
        },
        "$ref": "#/definitions/node",
    }
    assert too_complex(recursive, WHERE) is None


def test_definitions_count_where_they_are_used_not_where_they_are_written():
    # 1,500 references in a row: each definition also walked from where it is written
    # would be 1,500 * 1,500 / 2 schemas.
    n = 1_500
    defs = {f"d{i}": {"$ref": f"#/definitions/d{i + 1}"} for i in range(n)}
    defs[f"d{n}"] = {"type": "object"}
    assert too_complex({"definitions": defs, "$ref": "#/definitions/d0"}, WHERE) is None


def test_a_property_named_like_a_keyword_is_a_schema_all_the_same():
    chain = _chain(16, 2)
    hidden = {
        "definitions": chain["definitions"],
        "properties": {"default": {"$ref": "#/definitions/d0"}, "enum": {}},
    }
    found = too_complex(hidden, WHERE)
    assert found is not None
    assert found.path == (*WHERE, "properties", "default", "$ref")


def _upstream() -> list[tuple[str, dict[str, Any]]]:
    if not CRDS.is_dir():
        return []
    found = []
    for path in sorted(CRDS.glob("**/*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            found += [(path.name, s) for _, s, _ in _schemas(doc)]
    return found


@pytest.mark.skipif(not CRDS.is_dir(), reason="needs ../shared CRDs")
def test_the_upstream_crds_are_far_inside_every_bound():
    schemas = _upstream()
    assert len(schemas) >= 20
    start = time.perf_counter()
    assert [name for name, s in schemas if too_complex(s, WHERE)] == []
    # All of them, Trainer's runtimes included: milliseconds each.
    assert time.perf_counter() - start < 0.05 * len(schemas)


@pytest.mark.skipif(not CRDS.is_dir(), reason="needs ../shared CRDs")
def test_the_largest_upstream_crd_loads_and_compiles(tmp_path: Path):
    name = "clustertrainingruntime-trainer-v2.3.0.yaml"
    (tmp_path / name).write_bytes((CRDS / name).read_bytes())
    validators, problems, _ = load_crd_schemas(tmp_path, [name])
    assert problems == []
    assert list(validators) == [
        ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime")
    ]


def test_a_quote_is_masked_before_it_is_cut():
    url = "https://admin:Hunter2xHunter2Hunter2xHunter2@h.example.com/r.git"
    text = "a" * 30 + " " + url
    # Cut first, the URL would have lost its @host, and its password with it.
    assert shortened(text, 60) == "a" * 30 + " https://admin:***@h.example.c..."
    token = "ghp_" + "Z9" * 18
    assert shortened(f"x {token} y", 7) == "x ghp_***..."
    assert shortened(f"x {token} y", 6) == "x ghp_..."
    assert shortened("short", 10) == "short"
