"""`kgen list` (`plan`): what each environment will run, per job and in total.

Counts are per pod as rendered (kgen.pipeline.facts): each pod's effective request as
Kubernetes charges it (kgen.render.requests: sidecars and init containers too, a GPU
after inheritance, so a PS gets none unless asked), the TensorBoard Deployment's pods
with its job, and elastic jobs at their maximum size, since that is what a quota
(kgen.rules.quota) must hold.
"""

from __future__ import annotations

from decimal import Decimal

from kgen.pipeline.records import RunResult


def table(result: RunResult) -> str:
    loads = [r.facts.load for r in result.renders]
    header = (
        "ENVIRONMENT",
        "JOB",
        "KIND",
        "TARGET",
        "ROLES",
        "PODS",
        "GPUS",
        "CPU",
        "MEMORY",
    )
    rows = [header]
    for env in result.environments:
        mine = [load for load in loads if load.env == env.name]
        rows += [
            (
                x.env,
                x.job,
                x.kind,
                x.target,
                x.roles,
                str(x.pods),
                str(x.gpus),
                _cpu(x.cpu),
                _memory(x.memory),
            )
            for x in mine
        ]
        total = (
            sum(x.pods for x in mine),
            sum(x.gpus for x in mine),
            sum((x.cpu for x in mine), Decimal(0)),
            sum((x.memory for x in mine), Decimal(0)),
        )
        rows.append(
            (
                env.name,
                "(total)",
                "",
                "",
                "",
                str(total[0]),
                str(total[1]),
                _cpu(total[2]),
                _memory(total[3]),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        + "\n"
        for row in rows
    )


def _cpu(value: Decimal) -> str:
    return f"{value.normalize():f}" if value else "-"


def _memory(value: Decimal) -> str:
    if not value:
        return "-"
    gib = value / Decimal(2**30)
    return f"{gib.quantize(Decimal('0.1')).normalize():f}Gi"
