"""The health of a job kind as Flux's healthCheckExprs take it (CEL), built from the
kind's condition table (kgen.kinds.base.Health), the same one the Argo CD Lua comes from.

Flux evaluates `inProgress`, then `failed`, then `current` (fluxcd/pkg runtime/cel
status_evaluator.go, RFC 0009); the table says the first True condition wins. So each
expression is "this row's condition is True and no earlier row's is", which makes them
exclusive and the order Flux uses irrelevant. The object's top-level fields are the CEL
variables; a job the operator has not given a status yet makes `status` unknown, and Flux
waits (as documented for missing fields). Plain CEL, without optional syntax, so any
CEL implementation evaluates it.
"""

from __future__ import annotations

from kgen.kinds.health import Health

# Argo CD health to Flux's result; what is neither failed nor current is in progress.
_FLUX = {"Degraded": "failed", "Healthy": "current"}


def _true(condition: str) -> str:
    assert "'" not in condition and "\\" not in condition  # kgen's own table
    return f"status.conditions.exists(c, c.type == '{condition}' && c.status == 'True')"


def _first(condition: str, earlier: list[str]) -> str:
    return " && ".join([_true(condition), *(f"!{_true(e)}" for e in earlier)])


def health_exprs(health: Health) -> dict[str, str]:
    """`failed`, `current` and `inProgress` for a kind (those that can be True)."""
    terms: dict[str, list[str]] = {"failed": [], "current": [], "inProgress": []}
    earlier: list[str] = []
    for condition, status, _message in health.conditions:
        terms[_FLUX.get(status, "inProgress")].append(_first(condition, earlier))
        earlier.append(condition)
    # Running counts as ready: waiting for the end of training would time out.
    terms["current"] += [_first(condition, earlier) for condition in health.started]
    exprs = {
        name: "has(status.conditions) && (" + " || ".join(f"({t})" for t in parts) + ")"
        for name, parts in terms.items()
        if parts
    }
    if health.started_expr:
        exprs["current"] = _or_started(
            exprs.get("current"), health.started_expr, earlier
        )
    return exprs


def _or_started(current: str | None, started: str, earlier: list[str]) -> str:
    """`current`, or the kind's own started expression while no row's condition is
    True (a TrainJob may have no conditions yet while its nodes run)."""
    none_true = " && ".join(f"!{_true(e)}" for e in earlier)
    up = f"({started}) && (!has(status.conditions) || ({none_true}))"
    return f"({current}) || ({up})" if current else up
