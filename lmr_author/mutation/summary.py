"""A benchmark's test strength in one table: per implementation, the mutation score,
the survivors and the equivalent mutants (`validate --run --mutants`).

`mutation_table` is the table model (`lmr_author.domain.table_model.Section`) the commands
draw and `benchmarks/published_benchmark.py` prints; `summary_json` is ``--json``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lmr_author.domain.table_model import Column, Section
from lmr_author.mutation.score import MutationReport


def mutation_table(reports: Sequence[MutationReport]) -> Section:
    """One row per implementation, weakest first, and a total row."""
    ordered = sorted(reports, key=lambda r: (r.score, r.task, r.impl_index))
    rows = [
        [
            f"{r.task} #{r.impl_index}",
            f"{r.score:.0%}",
            f"{r.killed}/{r.scored}",
            str(len(r.survivors)),
            str(len(r.equivalent)),
            str(r.errors),
            ", ".join(f"{m.key} {m.operator}" for m in r.survivors[:3])
            + (f" (+{len(r.survivors) - 3})" if len(r.survivors) > 3 else ""),
        ]
        for r in ordered
    ]
    killed = sum(r.killed for r in reports)
    scored = sum(r.scored for r in reports)
    if reports:
        rows.append(
            [
                "all",
                f"{killed / scored:.0%}" if scored else "100%",
                f"{killed}/{scored}",
                str(sum(len(r.survivors) for r in reports)),
                str(sum(len(r.equivalent) for r in reports)),
                str(sum(r.errors for r in reports)),
                "",
            ]
        )
    weak = sum(1 for r in reports if r.survivors)
    return Section(
        title="Test strength (mutation score)",
        columns=[
            Column("implementation", "key"),
            Column("score"),
            Column("killed"),
            Column("surv."),
            Column("equiv."),
            Column("not run", optional=True),
            Column("first survivors (key operator)", "text", optional=True),
        ],
        rows=rows,
        note=(
            f"{weak} of {len(reports)} implementation(s) let a wrong answer pass: a "
            "survivor is a changed golden function that the tests accept."
            if weak
            else "Every counted mutant is killed."
        ),
        legend=[
            "score: killed / counted (run, not marked equivalent)",
            "surv.: mutants the tests accept; equiv.: marked equivalent in info.json "
            "(implementations[i].equivalent_mutants, with the reason)",
        ],
    )


def summary_json(reports: Sequence[MutationReport]) -> dict[str, Any]:
    """``{"implementations": [...], "total": {...}}`` for ``validate --mutants --json``."""
    items = [
        {
            "task": r.task,
            "implementation": r.impl_index,
            "score": round(r.score, 4),
            "mutants": r.total,
            "killed": r.killed,
            "counted": r.scored,
            "not_run": r.errors,
            "survivors": [
                {
                    "mutant": m.key,
                    "operator": m.operator,
                    "description": m.description,
                    "diff": m.diff,
                }
                for m in r.survivors
            ],
            "equivalent": [
                {"mutant": m.key, "operator": m.operator, "reason": marked.reason}
                for m, marked in r.equivalent
            ],
        }
        for r in reports
    ]
    killed = sum(r.killed for r in reports)
    scored = sum(r.scored for r in reports)
    return {
        "implementations": items,
        "total": {
            "implementations": len(reports),
            "killed": killed,
            "counted": scored,
            "score": round(killed / scored, 4) if scored else 1.0,
            "survivors": sum(len(r.survivors) for r in reports),
            "equivalent": sum(len(r.equivalent) for r in reports),
            "with_survivors": sum(1 for r in reports if r.survivors),
        },
    }
