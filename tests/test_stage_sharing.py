"""Overlay lists that merge a job to the same spec share its validation and rules
(kgen.pipeline.stage); each list still locates its problems at its own lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgen.load.project import load_project
from kgen.pipeline import stage
from kgen.pipeline.run import run
from kgen.spec.validate import validate_model

JOB = (
    "framework: pytorch\nimage: example.com/train:1\nroles:\n  master: {replicas: 1}\n"
)


def _project(root: Path, overlays: dict[str, str], environments: str) -> Path:
    root.mkdir()
    (root / "kgen.yaml").write_text(f"environments:\n{environments}")
    (root / "overlays").mkdir()
    for name, text in overlays.items():
        (root / "overlays" / f"{name}.yaml").write_text(text)
    (root / "jobs").mkdir()
    (root / "jobs" / "a.yaml").write_text(JOB)
    (root / "jobs" / "b.yaml").write_text(JOB.replace("train:1", "train:2"))
    return root


def _validations(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    calls: list[object] = []
    real = validate_model

    def counted(model: object, data: object) -> object:
        calls.append(data)
        return real(model, data)  # type: ignore[arg-type]

    monkeypatch.setattr(stage, "validate_model", counted)
    return calls


def test_lists_that_merge_alike_validate_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    root = _project(
        tmp_path / "p",
        {
            "v1": "target: v1\n",
            "beta": "target: v1beta2\n",
            "gpu": "patch:\n  resources: {gpu: 1}\n",
        },
        "  one: {overlays: [v1]}\n  two: {overlays: [beta]}\n  three: {}\n"
        "  four: {overlays: [gpu]}\n",
    )
    project, problems = load_project(root, use_cache=False)
    assert project is not None and not problems
    calls = _validations(monkeypatch)
    result = run(project, emit=True)
    assert not result.errors
    assert len(result.renders) == 8
    # Per job: as written (three environments); with a GPU only its resources are
    # validated, from that spec (kgen.spec.revalidate).
    assert len(calls) == 2


def test_shared_checks_are_located_per_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    bad = "patch:\n  roles:\n    master: {replicas: -1}\n"
    root = _project(
        tmp_path / "p",
        {"x": bad, "y": "# the same patch, a line lower\n" + bad},
        "  one: {overlays: [x]}\n  two: {overlays: [y]}\n",
    )
    project, problems = load_project(root, use_cache=False)
    assert project is not None and not problems
    calls = _validations(monkeypatch)
    result = run(project, emit=True)
    assert len(calls) == 2  # one per job: both lists merge to the same spec
    places = sorted({(p.file, p.line, p.column) for p in result.errors})
    assert places == [("overlays/x.yaml", 3, 24), ("overlays/y.yaml", 4, 24)]


def test_a_target_that_picks_another_model_validates_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # On a trainer target a pytorch job is a TrainJob: another model, other checks.
    root = _project(
        tmp_path / "p",
        {"v1": "target: v1\n", "trainer": "target: trainer-v2.3\n"},
        "  one: {overlays: [v1]}\n  two: {overlays: [trainer]}\n  three: {}\n",
    )
    project, problems = load_project(root, use_cache=False)
    assert project is not None and not problems
    calls = _validations(monkeypatch)
    result = run(project, emit=True)
    assert not result.errors, result.errors
    assert len(result.renders) == 6
    assert len(calls) == 4  # per job: PyTorchJob (v1 and the default) and TrainJob
