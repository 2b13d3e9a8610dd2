"""`build --check` needs each file's digest, never its text: the workers that render
for it send none back (kgen.pipeline.run), while a build's still carry theirs to the
spool. The verdict is the same either way: tests/test_parallel.py compares the bytes
and messages of one worker and several."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgen.pipeline import parallel
from kgen.pipeline import run as pipeline_run
from tests.conftest import REPO, RunKgen

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import generate


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every file of every render as it came back from the workers."""
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 2)
    monkeypatch.setenv("KGEN_WORKERS", "2")
    monkeypatch.setenv("KGEN_NO_CACHE", "1")
    files: list[Any] = []
    streamed = parallel.imap_units

    def watched(*args: Any, **kwargs: Any) -> Iterator[Any]:
        for parsed, outcomes in streamed(*args, **kwargs):
            files.extend(
                out for facts, _, _ in outcomes if facts for out in facts.files
            )
            yield parsed, outcomes

    monkeypatch.setattr(pipeline_run, "imap_units", watched)
    return files


@pytest.mark.parametrize("check", [True, False])
def test_workers_send_texts_only_to_a_build(
    tmp_path: Path, run_kgen: RunKgen, sent: list[Any], check: bool
):
    root = tmp_path / "project"
    generate(root, 12)
    assert run_kgen("build", "-C", str(root)).code == 0
    sent.clear()
    result = run_kgen("build", *(["--check"] if check else []), "-C", str(root))
    assert result.code == 0
    assert len(sent) > 100
    assert all(out.digest and out.size for out in sent)
    if check:
        assert not any(out.text for out in sent)
    else:  # the spool writes them
        assert all(out.text for out in sent)
