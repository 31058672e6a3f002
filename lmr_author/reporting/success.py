"""The table the regression of Table 5 is fitted on: one row per system × implementation.

Success is the unit-test verdict of the run (``pass``); runs that failed for reasons of
infrastructure are left out, as they are of accuracy. The predictors are the repository
metrics of the run's task (`lmr_author.reporting.repo_metrics`), computed from the task
folders of the benchmark the runs were evaluated on.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lmr_author.errors import UserError
from lmr_author.eval_output import scan_stored_runs
from lmr_author.reporting.regression import SuccessRow
from lmr_author.reporting.repo_metrics import ImplementationMetrics, implementation_metrics
from lmr_author.verdicts import PASS


def success_rows(outputs: Sequence[Path], benchmark: Path) -> tuple[list[SuccessRow], list[str]]:
    """The rows of every counted run of ``outputs``, and a note per run left out."""
    from lmr_author.benchmark import load_benchmark

    metrics: dict[tuple[str, int], ImplementationMetrics] = {}
    # Measuring a task needs its repository and golden file: one missing leaves the task
    # out, not the regression.
    loaded = load_benchmark(benchmark, runnable=True)
    notes: list[str] = [
        f"task {item.name} left out (it cannot be loaded): {item.reason}" for item in loaded.broken
    ]
    for task in loaded.tasks:
        try:
            task_metrics = implementation_metrics(task)
        except UserError as error:
            notes.append(f"task {task.name} left out (it cannot be measured): {error.message}")
            continue
        for found in task_metrics:
            metrics[(found.task, found.index)] = found
    rows: list[SuccessRow] = []
    for output in outputs:
        runs, problems = scan_stored_runs(output)
        notes.extend(problems)
        for run in runs:
            if not run.record.counted:
                continue
            measured = metrics.get((run.task, run.implementation))
            if measured is None:
                notes.append(
                    f"{run.system} {run.task}#{run.implementation}: not a task of {benchmark}; "
                    "left out of the regression"
                )
                continue
            rows.append(
                SuccessRow(
                    system=run.system,
                    item=f"{run.task}#{run.implementation}",
                    success=run.verdict == PASS,
                    predictors=measured.predictors(),
                )
            )
    if not rows:
        raise UserError(
            "no runs to fit the regression on",
            hint="Give eval output folders whose runs are tasks of the benchmark.",
        )
    return rows, notes
