"""The output index: looking a few paths up must read it exactly as parsing it all."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgen.writer import index_path, read_fingerprints, with_index

OUTPUT = "manifests"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    files = {
        f"{OUTPUT}/dev/train.yaml": "",
        f"{OUTPUT}/dev/train.yaml.bak": "",
        f"{OUTPUT}/dev/train-2.yaml": "",
        f"{OUTPUT}/dev/pvc-data.yaml": "",
        f"{OUTPUT}/prod/train.yaml": "",
    }
    marks = {
        f"{OUTPUT}/dev/train.yaml": "spec-yaml-sha256:00000000000000aa",
        f"{OUTPUT}/dev/train-2.yaml": "spec-yaml-sha256:00000000000000bb",
        f"{OUTPUT}/prod/train.yaml": "spec-yaml-sha256:00000000000000cc",
    }
    index = with_index(files, OUTPUT, fingerprints=marks)[index_path(OUTPUT)]
    (tmp_path / OUTPUT).mkdir()
    (tmp_path / index_path(OUTPUT)).write_text(index)
    return tmp_path


ASKED = [
    f"{OUTPUT}/dev/train.yaml",  # a prefix of another line (train.yaml.bak)
    f"{OUTPUT}/dev/train-2.yaml",
    f"{OUTPUT}/dev/pvc-data.yaml",  # owned, no mark
    f"{OUTPUT}/prod/train.yaml",  # the last line
    f"{OUTPUT}/dev/train",  # a prefix of owned paths, not owned itself
    f"{OUTPUT}/dev/gone.yaml",
    "# Files kgen generated here; kgen removes them when no job produces them.",
    "",
]


def test_looking_up_a_few_paths_agrees_with_reading_every_line(root: Path) -> None:
    everything = read_fingerprints(root, OUTPUT)
    assert everything[f"{OUTPUT}/dev/train.yaml"] == "spec-yaml-sha256:00000000000000aa"
    assert everything[f"{OUTPUT}/dev/pvc-data.yaml"] is None
    few = read_fingerprints(root, OUTPUT, only=ASKED)
    assert few == {p: everything[p] for p in ASKED if p in everything}
    assert len(few) == 4


def test_an_index_with_windows_line_ends_reads_the_same(root: Path) -> None:
    index = root / index_path(OUTPUT)
    expected = read_fingerprints(root, OUTPUT)
    index.write_bytes(index.read_bytes().replace(b"\n", b"\r\n"))
    assert read_fingerprints(root, OUTPUT) == expected
    assert read_fingerprints(root, OUTPUT, only=ASKED) == {
        p: expected[p] for p in ASKED if p in expected
    }


def test_no_index_owns_nothing(tmp_path: Path) -> None:
    assert read_fingerprints(tmp_path, OUTPUT, only=ASKED) == {}


def test_an_index_without_its_header_reads_the_same(root: Path) -> None:
    # Edited by hand: the first line is an entry.
    index = root / index_path(OUTPUT)
    expected = read_fingerprints(root, OUTPUT)
    index.write_text("".join(index.read_text().splitlines(keepends=True)[1:]))
    assert read_fingerprints(root, OUTPUT) == expected
    first = f"{OUTPUT}/dev/pvc-data.yaml"
    assert index.read_text().startswith(first + "\n")
    assert read_fingerprints(root, OUTPUT, only=[first]) == {first: None}
