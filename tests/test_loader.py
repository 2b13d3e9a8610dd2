from __future__ import annotations

import subprocess
import sys
import time

import pytest

from kgen.load import yaml as loader
from kgen.load.files import MAX_FILE_BYTES
from kgen.load.limits import (
    MAX_DEPTH,
    MAX_EXPANDED_CHARS,
    MAX_NODES,
    Budget,
    refuse_deep_nesting,
)
from kgen.load.refusals import LoadError
from kgen.load.yaml import load_bytes, load_string


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


def test_a_colon_in_a_flow_value_gets_told_to_quote_it():
    _doc, problems = load("roles:\n  master: {image: x.io/y:1, replicas: 1}\n")
    (p,) = problems
    assert (p.line, p.column, p.code, p.message) == (
        2,
        25,
        "yaml-syntax",
        "found unexpected ':'",
    )
    assert p.hint == (
        'quote the value that starts at line 2, column 19, e.g. {image: "x.io/y:1"}:'
        " inside {...} or [...] a ':' in an unquoted value is an error"
    )


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
        "import sys; from kgen.load.yaml import load_string; "
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


def _problem(text: str) -> tuple[int | None, int | None, str, str, str | None]:
    doc, problems = load(text)
    assert doc is None and len(problems) == 1, (doc, problems)
    p = problems[0]
    return p.line, p.column, p.code, p.message, p.hint


@pytest.mark.parametrize(
    "scalar", ["-_", "+_", "0x_", "0b_", "0o_", "._", "-._", "+__"]
)
def test_plain_scalars_typed_as_numbers_that_are_none(scalar: str):
    """ruamel's 1.2 patterns allow a sign, a prefix or a point with only underscores;
    int() and float() refuse them. A located error, not a ValueError."""
    assert _problem(f"a: 1\nb: {scalar}\n") == (
        2,
        4,
        "yaml-syntax",
        f"'{scalar}' looks like a number to YAML but is not one",
        "quote it if it is text",
    )


@pytest.mark.parametrize(
    ("tagged", "kind"),
    [
        ("!!int abc", "a whole number"),
        ("!!int 1.5", "a whole number"),
        ("!!int \u0661\u0662", "a whole number"),  # digits of another script
        ("!!int ' 12'", "a whole number"),
        ("!!float abc", "a number"),
        ("!!float 0x10", "a number"),
        ("!!bool yes", "true or false"),
        ("!!bool 1", "true or false"),
        ("!!null nothing", "null"),
    ],
)
def test_a_tag_and_a_text_that_disagree(tagged: str, kind: str):
    tag, text = tagged.split(" ", 1)
    shown = text.strip("'")
    assert _problem(f"a: {tagged}\n") == (
        1,
        4,
        "yaml-syntax",
        f"'{shown}' is not {kind}, as its tag {tag} says",
        f"remove the tag, or write {kind}",
    )


def test_a_tag_after_an_anchor_is_still_the_tag_written():
    assert _problem("a: &x !!int abc\n")[3] == (
        "'abc' is not a whole number, as its tag !!int says"
    )
    assert (
        _problem("a: &x -_\n")[3] == "'-_' looks like a number to YAML but is not one"
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("!!int 0x1F", 31),
        ("!!int '-12'", -12),
        ("!!float 1", 1.0),
        ("!!float -.Inf", float("-inf")),
        ("!!bool True", True),
        ("!!null ~", None),
        ("!!str 010", "010"),
        ("! 010", "010"),  # the non-specific tag: a string (YAML 1.2, 6.9.2)
        ("&x ! 010", "010"),
        ("! &x 010", "010"),
        ("'" + "0" * 5000 + "1'", "0" * 5000 + "1"),
        ("0" * 5000 + "1", 1),
        ("9" * 100, int("9" * 100)),
        ("-0x" + "f" * 80, -int("f" * 80, 16)),
    ],
)
def test_tags_and_numbers_that_are_fine(text: str, value: object):
    doc, problems = load(f"a: {text}\n")
    assert problems == [] and doc.data == {"a": value}


@pytest.mark.parametrize(
    "number",
    [
        "1" + "0" * 100,
        "-" + "9" * 5000,
        "0x" + "f" * 5000,
        "0b" + "1" * 400,
        "1_" * 3000,
    ],
)
def test_integers_past_100_digits_are_refused_unconverted(number: str):
    shown = number if len(number) <= 40 else number[:20] + "..."
    assert _problem(f"a: {number}\n") == (
        1,
        4,
        "invalid-value",
        f"'{shown}' is a number of more than 100 digits; no field takes one",
        "quote it if it is text",
    )


_YAML_1_1_HINT = (
    "remove the %YAML line, and check the values YAML 1.1 reads otherwise:"
    " there 010 is 8 and yes, no, on and off are booleans; quote text"
)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("%YAML 1.1\n---\nreplicas: 010\n", 1, "YAML 1.1"),
        ("# a comment\n%YAML 1.1\n---\na: yes\n", 2, "YAML 1.1"),
    ],
)
def test_yaml_versions_other_than_1_2_are_refused(text: str, line: int, message: str):
    assert _problem(text) == (
        line,
        1,
        "yaml-syntax",
        f"this file declares {message}; kgen reads YAML 1.2 only",
        _YAML_1_1_HINT,
    )


def test_yaml_versions_libyaml_does_not_know_are_syntax_errors():
    assert _problem("%YAML 1.3\n---\na: 1\n")[:4] == (
        1,
        1,
        "yaml-syntax",
        "found incompatible YAML document",
    )


def test_yaml_1_2_declared_reads_as_without_the_directive():
    doc, problems = load("%YAML 1.2\n---\na: 010\nb: yes\n")
    assert problems == [] and doc.data == {"a": 10, "b": "yes"}


def test_tag_directives_are_refused():
    assert _problem("%YAML 1.2\n%TAG !k! tag:yaml.org,2002:\n---\na: !k!int 3\n") == (
        2,
        1,
        "yaml-syntax",
        "%TAG directives are not supported",
        "kgen reads plain YAML: remove the %TAG line and the tags that use it",
    )


def test_a_percent_sign_in_text_is_no_directive():
    doc, problems = load("a: 100%\nb: |\n  %not a directive\n")
    assert problems == [] and doc.data == {"a": "100%", "b": "%not a directive\n"}


def _bounded(text: str, *, chars: int) -> Budget:
    budget = Budget()
    budget.chars = chars
    doc, problems = load_string(text, "f.yaml", budget=budget)
    assert doc is not None and problems == [], problems
    return budget


def test_expansion_is_counted_in_characters_with_every_alias():
    text = "a: &x abcdefghij\nb: [*x, *x, *x]\n"  # 10 + 30 characters, keys 2
    assert _bounded(text, chars=42).chars == 0
    budget = Budget()
    budget.chars = 41
    _doc, problems = load_string(text, "f.yaml", budget=budget)
    (problem,) = problems
    # An alias is the node it names: the place is the anchor, repeated past the limit.
    assert (problem.line, problem.column, problem.code, problem.message) == (
        1,
        4,
        "yaml-too-large",
        f"document expands to more than {MAX_EXPANDED_CHARS} characters",
    )


def test_keys_count_toward_the_expansion():
    text = "a: &k kkkkk\nb: {? *k : 1}\nc: {? *k : 2}\n"
    assert _bounded(text, chars=20).chars == 0  # a, b, c, 1, 2 and three times kkkkk
    budget = Budget()
    budget.chars = 19
    _doc, problems = load_string(text, "f.yaml", budget=budget)
    # The alias keys took 10 of the 19: the last value, `2`, is where it runs out.
    assert [(p.line, p.column, p.code) for p in problems] == [(3, 12, "yaml-too-large")]


def test_a_long_string_repeated_is_refused_before_it_is_built():
    anchor = "x" * 20_000
    text = f'a: &a "{anchor}"\nb: [' + ", ".join(["*a"] * 10_000) + "]\n"
    started = time.perf_counter()
    assert _problem(text)[:3] == (1, 4, "yaml-too-large")
    assert time.perf_counter() - started < 1.0


def test_documents_sharing_a_budget_say_so():
    budget = Budget(shared=True)
    bomb = (
        "a: &a [" + ",".join(["x"] * 300) + "]\nb: [" + ",".join(["*a"] * 200) + "]\n"
    )
    doc, problems = load_string(bomb, "f.yaml", budget=budget)
    assert doc is not None and problems == []
    _doc, problems = load_string(bomb, "f.yaml", budget=budget)
    assert [(p.code, p.message) for p in problems] == [
        (
            "yaml-too-large",
            f"the documents in this file expand to more than {MAX_NODES} values",
        )
    ]


def test_a_key_off_its_mapping_s_column_gets_told_to_line_it_up():
    _doc, problems = load("a: 1\nroles:\n  master: 1\n worker: 2\n")
    (p,) = problems
    assert (p.line, p.column, p.message) == (4, 2, "did not find expected key")
    assert p.hint == (
        "check the indentation: the keys of the mapping that starts at line 1,"
        " column 1 all start at column 1, and what belongs under a key is indented"
        " further"
    )


def test_an_item_off_its_list_s_column_gets_told_to_line_it_up():
    _doc, problems = load("volumes:\n  - name: logs\n  mountPath: /logs\n")
    (p,) = problems
    assert (p.line, p.column, p.message) == (
        3,
        3,
        "did not find expected '-' indicator",
    )
    assert p.hint == (
        "check the indentation: each item of the list that starts at line 2, column 3"
        " starts with '-' at column 3, and an item's keys line up after its '- '"
    )


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("framework: pytorch\n  image: x\n", 2, 8),  # a key indented under a value
        ("image: a: b\n", 1, 9),  # a ': ' inside an unquoted value
    ],
)
def test_a_colon_inside_a_value_gets_told_to_indent_or_quote(text, line, column):
    _doc, problems = load(text)
    (p,) = problems
    assert (p.line, p.column) == (line, column)
    assert p.message == "mapping values are not allowed in this context"
    assert p.hint == (
        "a key cannot start inside a value: if this line starts a key, indent it as"
        " the key above it; if the ': ' is part of the value, quote the value"
    )
