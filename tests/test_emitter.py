from __future__ import annotations

import pytest
import yaml
from ruamel.yaml import YAML

from kgen.output.emitter import dump_documents


@pytest.mark.parametrize(
    "value",
    [
        "yes",
        "no",
        "on",
        "off",
        "y",
        "N",
        "true",
        "Null",
        "~",
        "1",
        "0.5",
        "1e3",
        "0x1F",
        "0o17",
        "1_000",
        ".inf",
        "2024-01-01",
        "=",
        "",
        " lead",
        "a: b",
        "#x",
        "*alias",
        "-",
    ],
)
def test_strings_that_any_reader_could_mistake_stay_strings(value: str):
    text = dump_documents([{"v": value}])
    assert yaml.safe_load(text) == {"v": value}  # YAML 1.1, as kubectl reads it
    assert YAML(typ="safe", pure=True).load(text) == {"v": value}  # YAML 1.2


def test_go_yaml_booleans_and_exponents_are_quoted():
    assert (
        dump_documents([{"a": "y", "b": "1e3", "c": "0o17"}])
        == "---\na: 'y'\nb: '1e3'\nc: '0o17'\n"
    )


def test_key_order_is_kept_and_no_aliases_are_written():
    shared = {"x": 1}
    text = dump_documents([{"z": shared, "a": shared}])
    assert text == "---\nz:\n  x: 1\na:\n  x: 1\n"


def test_long_strings_are_not_folded_and_multiline_uses_a_block():
    long = "x" * 300
    assert dump_documents([{"a": long}]) == f"---\na: {long}\n"
    assert (
        dump_documents([{"s": "line one\nline two\n"}])
        == "---\ns: |\n  line one\n  line two\n"
    )


def test_header_comes_first():
    assert (
        dump_documents([{"a": 1}], header="# generated\n") == "# generated\n---\na: 1\n"
    )


def test_direct_emitter_writes_exactly_what_pyyaml_writes():
    from kgen.output.emitter import _dump_with_pyyaml
    from tests.conftest import REPO

    documents = [
        d
        for root in [
            REPO / "manifests",
            *(REPO / "tests" / "cases" / "positive").glob("*/expected"),
            REPO / "argocd",
        ]
        for path in sorted(root.rglob("*.yaml"))
        for d in yaml.safe_load_all(path.read_text())
        if d
    ]
    assert len(documents) > 80
    for document in documents:
        assert dump_documents([document]) == _dump_with_pyyaml([document])


@pytest.mark.parametrize(
    "value",
    [
        "plain",
        "/abs/path",
        "--flag=1",
        "https://x.io/a:b",
        "a:",
        "a: b",
        "a #b",
        "#a",
        "-",
        "-x",
        "- x",
        "@at",
        "a,b",
        "a b",
        "yes",
        "No",
        "ON",
        "Null",
        "1.5",
        "0x1F",
        "2024-01-01",
        "é",
        "tab\\there",
        "'",
        '"',
        "a'b",
        "{x}",
        "[x]",
        "x]",
        "&a",
        "*a",
        "!t",
        "%p",
        "|",
        ">",
        "?",
        "?x",
        "~",
        "=",
        "<<",
        "k8s.io/name",
        "1Gi",
        "500m",
        "--epochs",
        "--lr=0.1",
        "-",
        "--",
        "---",
        "---x",
        "--1",
        "-- x",
        "--x:",
        "--x: y",
        "--x #y",
        "2",
        "0.02",
        "-1.5e3",
        "0x1F",
        "08",
        "1_000",
        ".inf",
        "Y",
        "TRUE",
        "yes",
        "Off",
        "64Gi",
        "0.5Gi",
        "100m",
        "2k",
        "1E",
        "1e3",
        "1Gi:",
        "12:30",
        "2026-11-23",
        "Prune=false,Delete=false",
        "a,",
        "a,,b",
        "a, b",
        "a,:b",
        "a,: b",
        "a,:",
        "a:,b",
        "--a,b",
        "-,a",
        "/a,b",
        "yes,no",
        "a,#b",
        "a,[b]",
        "a,{b}",
        "1,2",
    ],
)
def test_direct_emitter_agrees_on_tricky_strings(value: str):
    from kgen.output.emitter import _dump_with_pyyaml

    document = {"key": value, "list": [value, {"name": value}], value: 1}
    assert dump_documents([document]) == _dump_with_pyyaml([document])


def test_a_shared_map_is_written_as_a_copy_would_be_at_every_indentation():
    import copy

    from kgen.output.emitter import _dump_with_pyyaml, shared

    template = shared({"spec": {"containers": [{"name": "a", "args": ["1", "x"]}]}})
    roles = shared({"Chief": {"template": template}, "Worker": {"template": template}})
    document = {"kind": "Job", "spec": {"replicaSpecs": roles}, "other": roles}
    expected = dump_documents([copy.deepcopy(document)])
    assert dump_documents([document]) == expected
    assert dump_documents([document]) == expected  # and again, from what it kept
    assert expected == _dump_with_pyyaml([copy.deepcopy(document)])


@pytest.mark.parametrize("value", ["a\u2028b", "\u2029", "x\x85", "a\u2028\nb"])
def test_other_line_breaks_are_escaped_on_one_line(value: str):
    # A team object's ConfigMap key "a\u2028b" was written quoted as it was, folded
    # over two lines: a manifest no YAML reader could load.
    from kgen.load.yaml import load_bytes

    document = {"data": {value: value}, "list": [value]}
    text = dump_documents([document])
    assert yaml.safe_load(text) == document  # YAML 1.1, as kubectl reads it
    assert YAML(typ="safe", pure=True).load(text) == document  # YAML 1.2
    read, problems = load_bytes(text.encode(), "out.yaml")  # and kgen, as it does
    assert problems == []  # a committed render
    assert read is not None and read.data == document
