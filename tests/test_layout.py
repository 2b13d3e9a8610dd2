"""The package reads as its data flow: no import cycles, even through imports made
inside functions (a lazy import may save start-up time, never hide a cycle)."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "kgen"


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """Nodes under `if TYPE_CHECKING:`, which never run."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            skipped |= {id(inner) for child in node.body for inner in ast.walk(child)}
    return skipped


def _imports(name: str, path: Path) -> set[str]:
    """The kgen modules `name` imports when it runs, at any depth of its code."""
    modules = _modules()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_nodes(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            for alias in node.names:
                found.add(
                    f"{base}.{alias.name}"
                    if f"{base}.{alias.name}" in modules
                    else base
                )
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {module for module in found if module in modules and module != name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_import_cycles():
    graph = {name: _imports(name, path) for name, path in _modules().items()}
    assert _cycles(graph) == []


def test_a_cycle_is_found():
    # The check itself can fail: a cycle of three through a lazy import is reported.
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


# The job kinds by every name kgen's code could branch on.
KIND_NAMES = re.compile(r"pytorch|tensorflow|PyTorch|TFJob|TFRoles|tfReplica", re.I)


def _kind_branches(path: Path) -> list[str]:
    """Identifiers that name a kind, and kind names compared, indexed or used as keys:
    how code outside a kind's package would branch on it. Docstrings, descriptions
    and examples may name kinds."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.alias):
            names = [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Compare):
            names = [_text(part) for part in (node.left, *node.comparators)]
        elif isinstance(node, ast.Dict):
            names = [_text(key) for key in node.keys if key is not None]
        elif isinstance(node, ast.Subscript):
            names = [_text(node.slice)]
        line = getattr(node, "lineno", 0)
        found += [(line, n) for n in names if KIND_NAMES.search(n)]
    return [f"{line}: {name}" for line, name in sorted(found)]


def _text(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return " ".join(_text(item) for item in node.elts)
    return ""


def test_only_the_registry_names_a_kind():
    registry = PACKAGE / "kinds"
    allowed = {registry / "__init__.py"}  # the list of kinds
    # TrainJob renders pytorch jobs on the trainer targets, with the PyTorch model.
    own = [registry / "pytorch", registry / "tensorflow", registry / "trainer"]
    branches = {
        path.relative_to(REPO).as_posix(): found
        for path in _modules().values()
        if path not in allowed and not any(path.is_relative_to(p) for p in own)
        if (found := _kind_branches(path))
    }
    assert branches == {}


def test_a_kind_branch_is_found(tmp_path: Path):
    module = tmp_path / "m.py"
    module.write_text(
        'if spec.framework == "pytorch":\n    pass\n'
        'KEYS = {"TFJob": 1}\n'
        "from kgen.kinds.pytorch.spec import PyTorchJobSpec\n"
        '"""A docstring may name PyTorchJob and TFJob."""\n'
    )
    assert _kind_branches(module) == [
        "1: pytorch",
        "3: TFJob",
        "4: PyTorchJobSpec",
        "4: kgen.kinds.pytorch.spec",
    ]


def test_no_module_is_long():
    lengths = {
        name: len(path.read_text(encoding="utf-8").splitlines())
        for name, path in _modules().items()
    }
    assert {name: n for name, n in lengths.items() if n > 300} == {}
