from __future__ import annotations

import subprocess
import sys

import pytest

from kgen import loader
from kgen.loader import MAX_DEPTH, MAX_FILE_BYTES, load_bytes
from kgen.yaml_bounds import refuse_deep_nesting
from kgen.yaml_problems import LoadError


def load(text: str | bytes):
    raw = text.encode() if isinstance(text, str) else text
    return load_bytes(raw, "f.yaml")


def only_problem(text: str | bytes) -> tuple[int | None, int | None, str, str]:
    doc, problems = load(text)
    assert doc is None
    assert len(problems) == 1, problems
    p = problems[0]
    return p.line, p.column, p.code, p.message


def test_positions_are_one_based_for_keys_and_values():
    doc, problems = load("a: 1\nb:\n  - x: hi\n    y: [1, 2]\n")
    assert problems == []
    assert doc.data == {"a": 1, "b": [{"x": "hi", "y": [1, 2]}]}
    origin = doc.positions[("b", 0, "y")]
    assert (origin.key_line, origin.key_column) == (4, 5)
    assert (origin.line, origin.column) == (4, 8)
    assert doc.positions[("b", 0, "y", 1)][1:3] == (4, 12)
    assert doc.positions[("b", 0)][1:3] == (3, 5)


def test_yaml_1_2_scalars():
    doc, _ = load(
        "a: yes\nb: 0x1F\nc: 1_000\nd: .inf\ne: 2024-01-01\nf: null\ng: 017\nh: true\n"
    )
    assert doc.data == {
        "a": "yes",
        "b": 31,
        "c": 1000,
        "d": float("inf"),
        "e": "2024-01-01",
        "f": None,
        "g": 17,
        "h": True,
    }


def test_empty_and_comment_only_files_have_no_data():
    for text in ("", "# only a comment\n"):
        doc, problems = load(text)
        assert problems == [] and doc.data is None


def test_byte_order_mark_is_accepted():
    doc, problems = load("\ufeffa: 1\n".encode())
    assert problems == [] and doc.data == {"a": 1}


def test_duplicate_key_points_at_the_second_and_names_the_first():
    assert only_problem("a: 1\nb: 2\na: 3\n")[:3] == (3, 1, "yaml-duplicate-key")
    _doc, problems = load("a: 1\nb: 2\na: 3\n")
    assert problems[0].hint == "'a' is first set at line 1; keep one"


def test_syntax_error_location_and_flow_hint():
    _doc, problems = load("a: 1\nroles: {chief: {replicas: 1}\n")
    p = problems[0]
    assert (p.line, p.column, p.code) == (3, 1, "yaml-syntax")
    assert p.hint == "while parsing a flow mapping that starts at line 2, column 8"


def test_tab_indentation_gets_a_hint():
    _doc, problems = load("a:\n\tb: 1\n")
    assert (problems[0].line, problems[0].column) == (2, 1)
    assert problems[0].hint == "YAML does not allow tabs for indentation; use spaces"


def test_unclosed_quote():
    assert only_problem("a: 'x\nb: 2\n")[2] == "yaml-syntax"


def test_more_than_one_document_is_refused():
    line, _col, code, message = only_problem("a: 1\n---\nb: 2\n")
    assert (line, code, message) == (
        2,
        "yaml-syntax",
        "more than one YAML document in this file",
    )


@pytest.mark.parametrize(
    "text",
    [
        "a: !!python/object:os.system x\n",
        "a: !custom x\n",
        "a: !!binary aGk=\n",
        "a: !!set {x}\n",
    ],
)
def test_tags_beyond_the_core_schema_are_refused(text: str):
    line, col, code, _message = only_problem(text)
    assert (line, col, code) == (1, 4, "yaml-tag")


def test_merge_keys_are_refused():
    assert only_problem("base: &b {x: 1}\nother:\n  <<: *b\n")[:3] == (
        3,
        3,
        "yaml-syntax",
    )


def test_alias_bomb_is_stopped():
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        name = chr(ord("a") + i)
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 10) + "]")
    code = only_problem("\n".join(lines) + "\n")[2]
    assert code == "yaml-too-large"


def test_deep_nesting_is_stopped():
    text = "a: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n"
    assert only_problem(text)[2] == "yaml-too-deep"


def test_very_deep_nesting_does_not_crash():
    text = "a: " + "[" * 5000 + "]" * 5000 + "\n"
    assert only_problem(text)[2] == "yaml-too-deep"


def test_non_utf8_bytes_are_located():
    line, col, code, message = only_problem(b"a: 1\nb: caf\xe9\n")
    assert (line, col, code) == (2, 7, "yaml-encoding")
    assert message == "file is not valid UTF-8 (byte 0xe9)"


def test_large_files_are_refused_before_parsing():
    assert only_problem(b"#" * (MAX_FILE_BYTES + 1))[2] == "file-too-large"


def test_complex_keys_are_refused():
    assert only_problem("? [a, b]\n: 1\n")[2] == "yaml-syntax"


def _nested_block_maps(levels: int) -> str:
    return "".join("  " * i + f"k{i}:\n" for i in range(levels)) + "  " * levels + "x\n"


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n",
        "a: " + "{a: " * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1) + "\n",
        "- " * (MAX_DEPTH + 2) + "x\n",
        _nested_block_maps(MAX_DEPTH + 1),
        "a:\n" + "".join("  " * i + "- " for i in range(1, 3)) + "[" * 99 + "]" * 99,
        "top: " + "[" * MAX_DEPTH + "1, 2" + "]" * MAX_DEPTH + "\n",
        "- {a: 1, " + "b: [" * MAX_DEPTH + "]" * MAX_DEPTH + "}\n",
    ],
)
def test_the_event_guard_reports_where_construction_would(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guard against composing deep documents must name the same place as the
    node walk it stands in for."""
    monkeypatch.setattr(loader, "SAFE_NESTING", 10**9)
    walked = only_problem(text)
    with pytest.raises(LoadError) as caught:
        refuse_deep_nesting(loader._yaml().parse(text), "f.yaml")
    problem = caught.value.problem
    assert walked == (problem.line, problem.column, problem.code, problem.message)
    assert walked[2] == "yaml-too-deep"


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * 100_000 + "]" * 100_000 + "\n",
        "a: " + "{a: " * 100_000 + "}" * 100_000 + "\n",
        "- " * 400_000 + "x\n",
    ],
    ids=["flow-sequences", "flow-mappings", "block-sequences"],
)
def test_nesting_that_kills_the_c_composer_is_refused_before_it(text: str) -> None:
    """ruamel's C composer overflows the C stack (SIGSEGV) past some 20,000 levels and
    its scanner is quadratic in flow depth: such input must never reach them."""
    program = (
        "import sys; from kgen.loader import load_string; "
        "doc, problems = load_string(sys.stdin.read(), 'f.yaml'); "
        "print(problems[0].code, problems[0].line, problems[0].column)"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "yaml-too-deep"
