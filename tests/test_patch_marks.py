"""What a patch wrote follows the list items it wrote when a later operation inserts,
removes or moves items before them (kgen.patch.marks): a problem in what a patch wrote
is reported at its line, and what the spec wrote is not reported at a patch's line
because a patch's item once sat at its index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgen.errors import DataPath
from kgen.load.document import Origin
from kgen.patch.context import Patching
from kgen.patch.marks import Budget, PatchMarks
from kgen.patch.ops import apply_ops
from kgen.spec.patches import PatchOp
from tests.conftest import RunKgen, write_tree

KGEN_YAML = """\
environments:
  dev: [v1]
lint:
  ignore: {resources-missing: minimal specs, sidecar-blocks-completion: tested}
"""
# Lines 1-9; the spec's sidecar, second in each pod, has its hostPort on line 9.
JOB = """\
framework: pytorch
image: registry.example.com/train:1.0
roles:
  master: {replicas: 1}
  worker: {replicas: 1}
containers:
  - name: side
    image: registry.example.com/side:1.0
    ports: [{containerPort: 8080, hostPort: 8080}]
patches:
"""
WORKER = "/spec/pytorchReplicaSpecs/Worker/template/spec"
# A patch's container with a hostPort of its own: its value is on line 14.
APPEND = f"""\
  - ops:
      - op: add
        path: {WORKER}/containers/-
        value: {{name: extra, image: "registry.example.com/extra:1.0", ports: [{{containerPort: 9090, hostPort: 9090}}]}}
"""
SPEC_PORT = (
    "jobs/train.yaml:9:45: warning: hostPort 8080 binds the node's port: one such pod"
    " per node, reachable from outside the cluster (host-port)"
)


def _patch_port(line: int, column: int, port: int) -> str:
    return (
        f"jobs/train.yaml:{line}:{column}: warning: the rendered PyTorchJob 'train', as"
        f" a patch left it: hostPort {port} binds the node's port: one such pod per"
        " node, reachable from outside the cluster (host-port)"
    )


def _run(
    run_kgen: RunKgen, tmp_path: Path, patches: str, *args: str
) -> tuple[int, list[str]]:
    root = write_tree(
        tmp_path / "project",
        {
            "kgen.yaml": KGEN_YAML,
            "overlays/v1.yaml": "target: v1\n",
            "jobs/train.yaml": JOB + patches,
        },
    )
    result = run_kgen(*(args or ("validate", "--format", "parsable")), cwd=root)
    output = (result.out + result.err).replace(": [warning] ", ": warning: ")
    return result.code, [line for line in output.splitlines() if "jobs/" in line]


def _rows(lines: list[str]) -> list[str]:
    """Explain's rows of what the patches wrote."""
    return [line for line in lines if line.startswith("  PyTorchJob train ")]


def test_an_insert_before_a_patchs_item_moves_its_record_along(
    tmp_path: Path, run_kgen: RunKgen
):
    # [pytorch, side, extra] then `first` at 0: side now sits at index 2, where the
    # first patch's container was written; extra at 3.
    insert = f"""\
  - ops:
      - op: add
        path: {WORKER}/containers/0
        value: {{name: first, image: "registry.example.com/first:1.0"}}
"""
    assert _run(run_kgen, tmp_path, APPEND + insert) == (
        0,
        [SPEC_PORT, _patch_port(14, 111, 9090)],
    )


def test_a_remove_before_a_patchs_item_moves_its_record_down(
    tmp_path: Path, run_kgen: RunKgen
):
    # [pytorch, side, extra] less side: extra, written at 2, is now at 1.
    remove = f"  - ops:\n      - {{op: remove, path: {WORKER}/containers/1}}\n"
    assert _run(run_kgen, tmp_path, APPEND + remove) == (
        0,
        [SPEC_PORT, _patch_port(14, 111, 9090)],
    )


def test_a_remove_shows_in_explain_at_the_index_the_item_had(
    tmp_path: Path, run_kgen: RunKgen
):
    remove = f"  - ops:\n      - {{op: remove, path: {WORKER}/containers/1}}\n"
    code, lines = _run(
        run_kgen, tmp_path, APPEND + remove, "explain", "train", "--env", "dev"
    )
    assert code == 0
    assert [line.split() for line in _rows(lines) if "train.yaml:16:" in line] == [
        [
            "PyTorchJob",
            "train",
            "spec.pytorchReplicaSpecs.Worker.template.spec.containers[1]:",
            "(removed)",
            "jobs/train.yaml:16:28",
        ]
    ]


def test_a_moved_item_keeps_its_records_and_the_items_it_passed_shift(
    tmp_path: Path, run_kgen: RunKgen
):
    # extra from 2 to 0: [extra, pytorch, side]; side's hostPort, at 2 now, is the
    # spec's, extra's the first patch's.
    move = (
        f"  - ops:\n      - {{op: move, from: {WORKER}/containers/2,"
        f" path: {WORKER}/containers/0}}\n"
    )
    assert _run(run_kgen, tmp_path, APPEND + move) == (
        0,
        [SPEC_PORT, _patch_port(14, 111, 9090)],
    )


def test_a_merge_that_deletes_an_item_moves_the_records_after_it(
    tmp_path: Path, run_kgen: RunKgen
):
    # [pytorch, side, extra] less side by name: extra is at 1.
    delete = (
        "  - merge: {spec: {pytorchReplicaSpecs: {Worker: {template: {spec:"
        " {containers: [{name: side, $patch: delete}]}}}}}}\n"
    )
    assert _run(run_kgen, tmp_path, APPEND + delete) == (
        0,
        [SPEC_PORT, _patch_port(14, 111, 9090)],
    )


def test_a_list_a_patch_replaces_whole_drops_the_records_of_its_items(
    tmp_path: Path, run_kgen: RunKgen
):
    # Nothing of the first patch is left in the list: explain shows none of its
    # values, not even as removed.
    replace = f"""\
  - ops:
      - op: replace
        path: {WORKER}/containers
        value:
          - {{name: pytorch, image: "registry.example.com/train:1.0"}}
          - {{name: side, image: "registry.example.com/side:1.0"}}
          - {{name: other, image: "registry.example.com/other:1.0"}}
"""
    code, lines = _run(
        run_kgen, tmp_path, APPEND + replace, "explain", "train", "--env", "dev"
    )
    assert code == 0
    rows = _rows(lines)
    assert [row for row in rows if "train.yaml:14:" in row] == []
    assert len(rows) == 6  # each value the second patch wrote


def test_a_test_operation_writes_nothing(tmp_path: Path, run_kgen: RunKgen):
    # Guards on the spec's sidecar: its hostPort is the spec's alone, and explain
    # lists nothing as patched.
    guard = (
        f"  - ops:\n      - {{op: test, path: {WORKER}/containers/1/name, value: side}}\n"
        f"      - {{op: test, path: {WORKER}/containers/1/ports/0/hostPort, value: 8080}}\n"
    )
    assert _run(run_kgen, tmp_path, guard) == (0, [SPEC_PORT])
    code, lines = _run(run_kgen, tmp_path, guard, "explain", "train", "--env", "dev")
    assert (code, _rows(lines)) == (0, [])


def _recorded(body: dict[str, Any], *ops: dict[str, Any]) -> dict[DataPath, int]:
    """Each place recorded after `ops` (one patch), and the index of the op."""
    patching = Patching(
        body,
        "Pod",
        "p",
        (),
        lambda path: Origin("p.yaml", int(path[1]) if len(path) > 1 else 0, 1, 1, 1),
        PatchMarks(),
        Budget(),
    )
    assert apply_ops(patching, [PatchOp.model_validate(op) for op in ops]) is None
    return {path: origin.line for path, origin in patching.marks.marks.items()}


def test_a_move_to_the_end_of_its_own_list_is_recorded_where_it_lands():
    # [a, x, b, c]: `-` is the end once the move took `a` out, index 3, not 4.
    assert _recorded(
        {"l": ["a", "b", "c"]},
        {"op": "add", "path": "/l/1", "value": "x"},
        {"op": "move", "from": "/l/0", "path": "/l/-"},
    ) == {("l", 0): 0, ("l", 3): 1}


def test_a_copy_into_a_list_moves_the_records_after_it_up():
    assert _recorded(
        {"l": [{"n": "a"}], "m": {"k": "v"}},
        {"op": "add", "path": "/l/0/n", "value": "b"},
        {"op": "copy", "from": "/m", "path": "/l/0"},
        {"op": "move", "from": "/l/1", "path": "/m/moved"},
    ) == {("l", 0): 1, ("m", "moved"): 2, ("m", "moved", "n"): 0}
