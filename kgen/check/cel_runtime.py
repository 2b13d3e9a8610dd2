"""The CEL runtime for CRD rules (`x-kubernetes-validations`): compile a rule once,
evaluate it with `self` (and `oldSelf`), within bounds.

The runtime is `common-expression-language` (cel-rust's Python bindings), chosen over
cel-python after measuring both on the TrainJob rules: 0.3 to 30 µs an evaluation
against 120 to 240 µs, 0.4 µs a comprehension step against 130 µs; `matches` on a
linear-time regex engine, as the API server's RE2 (cel-python's `re` backtracks);
numbers compared across int, uint and double as Kubernetes' CEL does (cel-python
refuses `1 == 1u`); and a parser that refuses deep nesting with an error instead of
Python's RecursionError. Its package imports a REPL (typer, rich, prompt_toolkit:
150 ms), so kgen loads the compiled module alone (9 ms), and only when a schema it
checks against holds a rule.

Rules are hostile input (a user CRD). Before one compiles: at most MAX_RULE_LENGTH
characters and MAX_NESTING levels of brackets. Before one runs: an estimate of its
cost on this value within MAX_COST, as the API server estimates a rule's cost and
refuses what exceeds its budget (kubernetes/apiserver pkg/cel/limits.go). The estimate
is the size of the value and the rule's own literals, to the power of the rule's
comprehensions: `all`/`exists` count once, `map`/`filter` twice (the runtime copies
their accumulator each step: `map` over 10,000 elements takes 9 s), and each further
`self` inside them once more (`self.map(x, self)` copies `self` per step: 2 s at 300).
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import re
from pathlib import Path
from typing import Any, NamedTuple

from kgen.errors import shortened
from kgen.stopping import Stopped

MAX_RULE_LENGTH = 4_096
MAX_NESTING = 32
# What one evaluation may be estimated to cost: measured on the worst shapes above,
# half a second at most.
MAX_COST = 5_000_000
# Macros, whose nesting multiplies the work: `self.all(x, self.all(y, ...))`, also
# written with blanks around the name (`self.all (x, ...)`: the same call).
_MACROS = {"all": 1, "exists": 1, "exists_one": 1, "map": 2, "filter": 2}
_MACRO = re.compile(r"\.\s*(all|exists_one|exists|map|filter)\s*\(")
# String literals and comments: their brackets and words are no code (`')'` closed
# nothing, so the comprehensions after it were counted one level too shallow).
# A raw string's backslash escapes nothing (`r'\'` is one backslash).
_NOT_CODE = re.compile(
    r"""(?:[rR][bB]?|[bB][rR])(?s:'{3}.*?'{3}|"{3}.*?"{3}|'[^'\n]*'|"[^"\n]*")"""
    r"""|(?s:'{3}(?:[^\\]|\\.)*?'{3}|"{3}(?:[^\\]|\\.)*?"{3})"""
    r"""|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|//[^\n]*"""
)
# Operators and standard functions, as the runtime names them in a program.
STANDARD = frozenset(
    (
        "_&&_",
        "_||_",
        "_==_",
        "_!=_",
        "_<_",
        "_<=_",
        "_>_",
        "_>=_",
        "_+_",
        "_-_",
        "_*_",
        "_/_",
        "_%_",
        "!_",
        "-_",
        "_?_:_",
        "_[_]",
        "@in",
        "@not_strictly_false",
        "@not",
        "has",
        "size",
        "matches",
        "startsWith",
        "endsWith",
        "contains",
        "int",
        "uint",
        "double",
        "string",
        "bytes",
        "bool",
        "type",
        "dyn",
        "duration",
        "timestamp",
        "list",
        "map",
        "null_type",
        "getFullYear",
        "getMonth",
        "getDayOfYear",
        "getDayOfMonth",
        "getDate",
        "getDayOfWeek",
        "getHours",
        "getMinutes",
        "getSeconds",
        "getMilliseconds",
        "all",
        "exists",
        "exists_one",
        "filter",
    )
)


@functools.cache
def library() -> Any:
    """The runtime's compiled module, without the package's command-line part."""
    spec = importlib.util.find_spec("cel")
    if spec is None or not spec.submodule_search_locations:  # pragma: no cover
        raise RuntimeError("common-expression-language is not installed")
    folder = Path(next(iter(spec.submodule_search_locations)))
    path = next(
        iter(sorted(folder.glob("cel.*.so")) + sorted(folder.glob("cel.*.pyd")))
    )
    loader = importlib.machinery.ExtensionFileLoader("cel.cel", str(path))
    module_spec = importlib.util.spec_from_loader("cel.cel", loader)
    assert module_spec is not None
    module = importlib.util.module_from_spec(module_spec)
    loader.exec_module(module)
    return module


class Compiled(NamedTuple):
    program: Any
    transition: bool  # the rule reads oldSelf
    power: int  # the estimate's exponent (see the module's docstring)
    unsupported: tuple[str, ...]  # Kubernetes functions kgen does not evaluate
    calls: tuple[str, ...]  # Kubernetes functions kgen evaluates


class CelError(Exception):
    """A rule that cannot compile or evaluate; the message says why."""


def nesting(rule: str) -> int:
    depth = deepest = 0
    for char in rule:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    return deepest


@functools.cache
def compile_rule(rule: str) -> Compiled:
    """The rule compiled, or CelError: too long, too deep, bad syntax, or a function
    that neither CEL nor Kubernetes has."""
    if len(rule) > MAX_RULE_LENGTH:
        raise CelError(f"the rule is longer than {MAX_RULE_LENGTH:,} characters")
    if nesting(rule) > MAX_NESTING:
        raise CelError(f"the rule nests brackets deeper than {MAX_NESTING} levels")
    try:
        program = library().compile(rule)
    except (KeyboardInterrupt, Stopped):
        raise  # Ctrl-C, SIGTERM, SIGHUP (kgen.stopping): not the rule's failure
    except BaseException as exc:
        raise _failed(exc) from None
    from kgen.check import cel_k8s  # with the runtime: only a schema with rules

    called = set(program.functions())
    unknown = sorted(called - STANDARD - cel_k8s.SUPPORTED - cel_k8s.UNSUPPORTED)
    if unknown:
        raise CelError(f"undeclared reference to '{unknown[0]}'")
    return Compiled(
        program,
        "oldSelf" in program.variables(),
        _power(rule),
        tuple(sorted(called & cel_k8s.UNSUPPORTED)),
        tuple(sorted(called & cel_k8s.SUPPORTED)),
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).replace("Failed to parse expression", "syntax error in")
    return text.split("\n", 1)[0][:300]


def size_of(value: Any, *, limit: int) -> int:
    """The nodes and characters in `value`, counted up to `limit`."""
    count, stack = 0, [value]
    while stack and count <= limit:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack += item.values()
            count += len(item)
        elif isinstance(item, list):
            stack += item
        elif isinstance(item, str):
            count += len(item) // 16
    return count


def _power(rule: str) -> int:
    """How deep the rule's comprehensions nest (by the brackets of their arguments),
    plus each `self` read inside one (`x in self`: the value again, at every step).
    Comprehensions one after the other, and `self` read outside them, add nothing:
    `[has(self.a), has(self.b)].filter(x, x)` is as cheap as it looks, which the
    Trainer CRD's mlPolicy rule is (kubeflow/trainer@v2.3.0 trainingruntime_types.go)."""
    rule = _NOT_CODE.sub(lambda text: " " * len(text.group()), rule)
    weights = {m.end() - 1: _MACROS[m.group(1)] for m in _MACRO.finditer(rule)}
    reads = {match.start() for match in re.finditer(r"\b(?:self|oldSelf)\b", rule)}
    opened: list[int] = []  # the weight of each open bracket: 0 if no macro's
    deepest = inside = 0
    for at, char in enumerate(rule):
        if char in "([{":
            opened.append(weights.get(at, 0))
            deepest = max(deepest, sum(opened))
        elif char in ")]}" and opened:
            opened.pop()
        elif at in reads and any(opened):
            inside += 1
    return max(deepest + inside, 1)


def cost(compiled: Compiled, rule: str, values: list[Any]) -> int:
    """Linear in the value's size, and a power of it for nested comprehensions."""
    size = sum(size_of(v, limit=MAX_COST) for v in values) + len(rule)
    return int(size**compiled.power)


class Budget:
    """What the rules on one object may cost together: MAX_OBJECT_COST."""

    def __init__(self) -> None:
        self.left = MAX_OBJECT_COST


# Twice what one rule may cost, or 10,000 plain evaluations (20 to 60 µs each).
MAX_OBJECT_COST = 2 * MAX_COST
EVALUATION_COST = 1_000


def evaluate(rule: str, variables: dict[str, Any], budget: Budget | None = None) -> Any:
    """The rule's value with these variables, or CelError; `budget` pays for it."""
    compiled = compile_rule(rule)
    estimate = cost(compiled, rule, list(variables.values()))
    if estimate > MAX_COST:
        raise CelError(
            f"evaluating it on this value is estimated to cost more than {MAX_COST:,}"
            " steps (the value is too large for its comprehensions)"
        )
    if budget is not None:
        budget.left -= estimate + EVALUATION_COST
        if budget.left < 0:
            raise CelError("the object's rules together cost too much")
    from kgen.check import cel_k8s

    failures = cel_k8s.Failures()
    context = library().Context()
    # Only the functions the rule calls: adding all of them costs 70 µs.
    for name in compiled.calls:
        context.add_function(name, cel_k8s.function(name, failures))
    for name, value in variables.items():
        context.add_variable(name, value)
    try:
        out = compiled.program.execute(context)
    except KeyError as exc:
        raise CelError(f"no such key: {shortened(str(exc.args[0]), 100)}") from None
    except (KeyboardInterrupt, Stopped):
        raise
    except BaseException as exc:
        raise (CelError(failures.messages[0]) if failures else _failed(exc)) from None
    if failures.messages:
        raise CelError(failures.messages[0])
    return out


def _failed(exc: BaseException) -> CelError:
    """What the runtime raised, as a CelError. A Rust panic is a BaseException
    (pyo3's PanicException): a rule that makes the runtime panic is a bad rule, not a
    crash of kgen. Interrupts and exits go on."""
    if isinstance(exc, Exception) or type(exc).__name__ == "PanicException":
        return CelError(_first_line(exc))
    raise exc
