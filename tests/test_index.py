"""The output index: looking a few paths up must read it exactly as parsing it all."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from kgen.errors import KgenError
from kgen.output.index import INDEX, index_path, read_fingerprints, with_index

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


HEADER = "# Files kgen generated here; kgen removes them when no job produces them.\n"
GOOD = f"{OUTPUT}/dev/train.yaml spec-yaml-sha256:00000000000000aa\n"
# Each is a line no kgen ever wrote: the whole index is refused, at that line.
BAD_LINES = {
    "/proc/self/environ": (3, 1, "it is an absolute path"),
    "../outside/secret.yaml": (3, 1, "it climbs out with '..'"),
    f"{OUTPUT}/../../outside/secret.yaml": (3, 11, "it climbs out with '..'"),
    f"{OUTPUT}/dev/..": (3, 15, "it climbs out with '..'"),
    "jobs/train.yaml": (3, 1, f"it is not inside the output folder {OUTPUT}/"),
    f"{OUTPUT}": (3, 1, f"it is not inside the output folder {OUTPUT}/"),
    f"{OUTPUT}x/dev/train.yaml": (
        3,
        1,
        f"it is not inside the output folder {OUTPUT}/",
    ),
    f"{OUTPUT}/./dev/x.yaml": (3, 11, "it has a '.' path component"),
    f"{OUTPUT}//dev/x.yaml": (3, 11, "it has an empty path component"),
    f"{OUTPUT}/dev/": (3, 15, "it has an empty path component"),
    f"{OUTPUT}/dev\\x.yaml": (3, 11, "it has a backslash"),
    f"{OUTPUT}/dev/\x1b[2Jx.yaml": (3, 15, "it holds a control character"),
    f"{OUTPUT}/dev/x.yaml\x00": (3, 21, "it holds a control character"),
    f"{OUTPUT}/dev/\u202ex.yaml": (3, 15, "it holds a control character"),
    f"{OUTPUT}/dev/\u00e9.yaml": (
        3,
        15,
        "it has a character kgen never writes in a file name",
    ),
    f"{OUTPUT}/dev/x.yaml junk": (
        3,
        22,
        "its fingerprint is not <scheme>:<hex digits>",
    ),
    f"{OUTPUT}/dev/x.yaml ": (3, 22, "its fingerprint is not <scheme>:<hex digits>"),
    f"{OUTPUT}/dev/x.yaml spec-yaml-sha256:00aa bb": (
        3,
        22,
        "its fingerprint is not <scheme>:<hex digits>",
    ),
    f" {OUTPUT}/dev/x.yaml": (3, 1, f"it is not inside the output folder {OUTPUT}/"),
}


def _outcome(read: Callable[[], dict[str, str | None]]) -> object:
    try:
        return read()
    except KgenError as exc:
        return [str(p) for p in exc.problems]


@pytest.mark.parametrize("line", sorted(BAD_LINES))
def test_an_entry_kgen_never_writes_refuses_the_index(
    tmp_path: Path, line: str
) -> None:
    (tmp_path / OUTPUT).mkdir()
    (tmp_path / index_path(OUTPUT)).write_text(HEADER + GOOD + line + "\n")
    number, column, why = BAD_LINES[line]
    with pytest.raises(KgenError) as raised:
        read_fingerprints(tmp_path, OUTPUT)
    [problem] = raised.value.problems
    assert (problem.file, problem.line, problem.column) == (
        index_path(OUTPUT),
        number,
        column,
    )
    assert f", which kgen cannot have written: {why};" in problem.message
    assert problem.hint == (
        f"restore it from git (git checkout -- {index_path(OUTPUT)}), then run kgen again"
    )
    # The lookup of a few paths refuses it exactly as the full read does.
    asked = [f"{OUTPUT}/dev/train.yaml"]
    assert _outcome(lambda: read_fingerprints(tmp_path, OUTPUT, only=asked)) == [
        str(problem)
    ]


INDEXES = [
    HEADER + GOOD,
    GOOD,
    "",
    "\n\n",
    HEADER,
    HEADER + GOOD + "\n# a note\n" + f"{OUTPUT}/dev/other.yaml\n",
    HEADER + GOOD.rstrip("\n"),  # no final line break
    (HEADER + GOOD).replace("\n", "\r\n"),
    HEADER + GOOD + "\r",
    HEADER + GOOD + f"{OUTPUT}/dev/train.yaml\n",  # listed twice
    HEADER + f"{OUTPUT}/dev/train.yaml spec-sha256:0123456789abcdef\n",
    HEADER + f"{OUTPUT}/.hidden/...x/..y\n",
    HEADER + "#" + "\x1b" * 3 + "\n" + GOOD,
    HEADER + GOOD + "/etc/passwd\n",
    GOOD + "\ufeff" + GOOD,
    HEADER + GOOD + f"{OUTPUT}/dev/train.yaml\u2028{OUTPUT}/x\n",
    HEADER + GOOD + f"{OUTPUT}/dev/train.yaml\x0c\n",
]


@pytest.mark.parametrize("text", INDEXES)
def test_a_lookup_and_a_full_read_accept_the_same_indexes(
    tmp_path: Path, text: str
) -> None:
    (tmp_path / OUTPUT).mkdir()
    (tmp_path / index_path(OUTPUT)).write_bytes(text.encode())
    asked = [f"{OUTPUT}/dev/train.yaml", f"{OUTPUT}/dev/other.yaml", f"{OUTPUT}/x"]
    full = _outcome(lambda: read_fingerprints(tmp_path, OUTPUT))
    few = _outcome(lambda: read_fingerprints(tmp_path, OUTPUT, only=asked))
    if isinstance(full, dict):
        assert few == {p: full[p] for p in asked if p in full}
    else:
        assert few == full


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda p: p.symlink_to("../../outside/secret.yaml"), "a symbolic link"),
        (lambda p: os.mkfifo(p), "a named pipe"),
        (lambda p: p.mkdir(), "a folder"),
    ],
)
def test_an_index_that_is_not_a_file_is_never_opened(
    tmp_path: Path, make: Callable[[Path], None], kind: str
) -> None:
    (tmp_path / OUTPUT).mkdir()
    make(tmp_path / index_path(OUTPUT))
    for only in (None, [f"{OUTPUT}/dev/train.yaml"]):
        with pytest.raises(KgenError) as raised:
            read_fingerprints(tmp_path, OUTPUT, only=only)
        assert [str(p) for p in raised.value.problems] == [
            f"{index_path(OUTPUT)}: kgen's index of the files it wrote is damaged;"
            f" it is {kind}, not a file (io)"
        ]


def test_an_index_behind_a_linked_output_folder_is_never_read(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / INDEX).write_text(HEADER + GOOD)
    root = tmp_path / "project"
    root.mkdir()
    (root / OUTPUT).symlink_to(elsewhere)
    with pytest.raises(KgenError) as raised:
        read_fingerprints(root, OUTPUT, only=[f"{OUTPUT}/dev/train.yaml"])
    assert [str(p) for p in raised.value.problems] == [
        f"{OUTPUT}: the output folder {OUTPUT} is a symbolic link; kgen writes only"
        " real folders (io)"
    ]


@pytest.mark.parametrize("output", ["manifests", "gen manifests", "a b/c d"])
def test_every_line_splits_at_the_space_after_its_path(
    tmp_path: Path, output: str
) -> None:
    """The output root's own name may hold spaces: a line's mark starts after its
    path, whatever the root is called."""
    marks = {
        f"{output}/dev/train.yaml": "spec-yaml-sha256:00000000000000aa",
        f"{output}/prod/train.yaml": "spec-yaml-sha256:00000000000000cc",
    }
    files = {**dict.fromkeys(marks, ""), f"{output}/dev/pvc-data.yaml": ""}
    index = with_index(files, output, fingerprints=marks)[index_path(output)]
    (tmp_path / output).mkdir(parents=True)
    (tmp_path / index_path(output)).write_text(index)
    assert read_fingerprints(tmp_path, output) == {
        **marks,
        f"{output}/dev/pvc-data.yaml": None,
    }
