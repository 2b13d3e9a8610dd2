"""The loader's fast path answers only where it agrees with the full loader.

Where `quick_load` gives a value, it must be exactly the full loader's: the same values
of the same types, the same positions in the same order. Where the full loader refuses
a file, the fast path must decline it, so the problem is worded by one loader only.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgen.load import limits
from kgen.load import yaml as loader
from kgen.load.limits import SAFE_NESTING, Budget, nesting_bound
from kgen.load.quick import quick_load
from kgen.load.refusals import LoadError
from tests.conftest import REPO
from tests.hostile.corpus import CASES


def _typed(value: Any) -> Any:
    """Values with their types, NaN equal to itself."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def _agree(text: str) -> bool:
    """Assert the two paths agree on `text`; True when the fast path answered."""
    try:
        quick = quick_load(text, "f.yaml")
    except LoadError as refused:  # only past the value limit, as the full loader
        with pytest.raises(LoadError) as full_refusal:
            loader.full_load(text, "f.yaml")
        assert refused.problem == full_refusal.value.problem
        assert refused.problem.code == "yaml-too-large"
        return False
    try:
        full = loader.full_load(text, "f.yaml")
    except LoadError as refused:
        assert quick is None, f"the full loader refuses this: {refused.problem}"
        return False
    if quick is None:
        return False
    data, positions = quick
    assert _typed(data) == _typed(full.data)
    assert list(positions.items()) == list(full.positions.items())
    return True


def _texts(*patterns: str) -> list[str]:
    paths = [p for pattern in patterns for p in sorted(REPO.glob(pattern))]
    return [p.read_text(encoding="utf-8") for p in paths]


def _corpus_texts() -> list[str]:
    texts = []
    for case in CASES.values():
        for content in case.files.values():
            raw = content.encode() if isinstance(content, str) else content
            if isinstance(raw, bytes):
                try:
                    texts.append(raw.decode("utf-8-sig"))
                except UnicodeDecodeError:
                    continue
    return [t for t in texts if nesting_bound(t) <= SAFE_NESTING]


def test_the_example_project_is_read_by_the_fast_path_alike():
    texts = _texts("jobs/*.yaml", "overlays/*.yaml", "kgen.yaml")
    assert len(texts) > 10
    assert all(_agree(text) for text in texts)


def test_every_case_file_agrees_or_is_declined():
    texts = _texts("tests/cases/**/*.yaml")
    answered = [t for t in texts if _agree(t)]
    assert 100 < len(answered) < len(texts)


def test_the_hostile_corpus_agrees_or_is_declined():
    texts = _corpus_texts()
    answered = [t for t in texts if _agree(t)]
    # Most cases are valid YAML with a bad value; those the fast path reads.
    assert 20 < len(answered) < len(texts)


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: !custom 1\n",
        "%YAML 1.2\n---\na: 1\n",
        "a: 1\na: 2\n",
        "<<: {a: 1}\n",
        "a: 1\n---\nb: 2\n",
        "a: [1, 2\n",
        "{[1]: x}\n",
        "a: " + "[" * (limits.MAX_DEPTH + 1) + "]" * (limits.MAX_DEPTH + 1) + "\n",
        "%YAML 1.1\n---\na: 010\n",
        "%TAG !k! tag:yaml.org,2002:\n---\na: 1\n",
        "a: ! 010\n",
        "a: -_\n",
        "a: 0x_\n",
        "a: ._\n",
        "a: " + "9" * 101 + "\n",
    ],
)
def test_what_the_fast_path_leaves_to_the_full_loader(text: str):
    assert quick_load(text, "f.yaml") is None


@pytest.mark.parametrize(
    "text",
    [
        "a: [" + ", ".join(["x"] * limits.MAX_NODES) + "]\n",
        "- " + "\n- ".join(["x"] * limits.MAX_NODES) + "\n",
        "a: [" + ", ".join(["x"] * limits.MAX_NODES) + "]\nb: &c 1\n",
        "a: [" + ", ".join(["x"] * limits.MAX_NODES) + "]\nb: [\n",
    ],
    ids=["flow", "block", "anchor-after", "broken-after"],
)
def test_both_paths_refuse_too_many_values_at_the_same_place(text: str):
    """Past the limit before any anchor, both stop at the first value too many, whatever
    follows: neither composes the rest."""
    with pytest.raises(LoadError) as quick:
        quick_load(text, "f.yaml")
    with pytest.raises(LoadError) as full:
        loader.full_load(text, "f.yaml")
    assert quick.value.problem == full.value.problem
    assert quick.value.problem.message == (
        f"document holds more than {limits.MAX_NODES} values"
    )


def test_what_the_fast_path_declines_first_the_full_loader_counts():
    text = "a: [-_, " + ", ".join(["x"] * limits.MAX_NODES) + "]\n"
    assert quick_load(text, "f.yaml") is None
    with pytest.raises(LoadError) as full:
        loader.full_load(text, "f.yaml")
    assert full.value.problem.code == "yaml-too-large"


def test_the_fast_path_counts_against_a_shared_budget():
    budget = Budget(shared=True)
    budget.nodes = 5
    assert quick_load("a: [1, 2]\n", "f.yaml", budget=budget) is not None
    assert budget.nodes == 1  # the mapping, the list and its two items are spent
    with pytest.raises(LoadError) as refused:
        quick_load("a: 1\n", "f.yaml", budget=budget)
    assert refused.value.problem.message == (
        f"the documents in this file hold more than {limits.MAX_NODES} values"
    )


def test_the_merge_key_quoted_is_an_ordinary_key():
    assert _agree("'<<': 1\n")


# Mutations of real job files: characters that mean something to YAML, inserted,
# replaced or deleted anywhere. Most results are broken; both paths must agree on which.
_JOBS = [p.read_text(encoding="utf-8") for p in sorted((REPO / "jobs").glob("*.yaml"))]
_SIGNIFICANT = st.sampled_from(
    [*":-?[]{},#&*!|>'\"%@` \t\n\r\\~.0123456789eExXoO", "  ", ": ", "- ", "\ufeff"]
)


@st.composite
def _mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(_JOBS))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "replace", "delete"]))
        piece = draw(_SIGNIFICANT)
        if action == "insert":
            text = text[:at] + piece + text[at:]
        elif action == "replace":
            text = text[:at] + piece + text[at + 1 :]
        else:
            text = text[:at] + text[at + draw(st.integers(1, 8)) :]
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_mutated_job_files_agree(text: str):
    _agree(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab1:-[]{}, \n'\"#&*!.")), max_size=40))
def test_random_yaml_like_text_agrees(text: str):
    _agree(text)


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb: [x, {c: y}]\nd: z\n",
        "- 1\n- [2, 3]\n- {a: 4}\n- 5\n",
        "a: {b: {c: [1, 2]}}\n",
    ],
)
def test_a_budget_runs_out_at_the_same_value_in_maps_and_lists(text: str):
    """Scalars in maps and lists are counted where they are read: with the budget
    exactly spent the document is read; one value less and it is refused at the value
    the full loader names."""
    full = loader.full_load(text, "f.yaml")
    values = 1 + len(full.positions)  # the root and every key's or item's value
    exact = Budget(shared=True)
    exact.nodes = values
    assert quick_load(text, "f.yaml", budget=exact) is not None
    assert exact.nodes == 0
    for spare in range(values):
        short = Budget(shared=True)
        short.nodes = spare
        with pytest.raises(LoadError) as refused:
            quick_load(text, "f.yaml", budget=short)
        full_budget = Budget(shared=True)
        full_budget.nodes = spare
        with pytest.raises(LoadError) as full_refused:
            loader.full_load(text, "f.yaml", budget=full_budget)
        assert refused.value.problem == full_refused.value.problem
