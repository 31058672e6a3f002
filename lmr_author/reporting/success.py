"""The table the regression of Table 5 is fitted on: one row per system × implementation.

Success is the unit-test verdict of the run (``pass``); runs that failed for reasons of
infrastructure are left out, as they are of accuracy. The predictors are the repository
metrics of the run's task (`lmr_author.reporting.repo_metrics`), computed from the task
folders of the benchmark the runs were evaluated on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from lmr_author.errors import UserError
from lmr_author.eval_output import scan_stored_runs
from lmr_author.reporting.regression import SuccessRow
from lmr_author.reporting.repo_metrics import ImplementationMetrics, implementation_metrics
from lmr_author.verdicts import PASS

if TYPE_CHECKING:
    from lmr_author.identity import Identity
    from lmr_author.reporting.published_results import PublishedLog


def success_rows(
    outputs: Sequence[Path],
    benchmark: Path,
    *,
    published: Sequence[tuple[str | None, Path]] = (),
    identity: Identity | None = None,
) -> tuple[list[SuccessRow], list[str]]:
    """The rows of every counted run of ``outputs`` and of every log line of the
    ``published`` results.txt files (``(system or None, path)``), and a note per run or
    task left out.

    A published log ``<task>/unit_test_<k>.log`` is implementation ``k`` of the task the
    identity matches (``1-DPO`` is ``01-DPO``); its PASS is the success, as the published
    statistics count it.
    """
    from lmr_author.benchmark import load_benchmark
    from lmr_author.identity import load_identity
    from lmr_author.reporting.published_results import load_published_results

    names = identity or load_identity()
    metrics: dict[tuple[str, int], ImplementationMetrics] = {}
    # Measuring a task needs its repository and golden file: one missing leaves the task
    # out, not the regression.
    loaded = load_benchmark(benchmark, runnable=True)
    notes: list[str] = [
        f"task {item.name} left out (it cannot be loaded): {item.reason}" for item in loaded.broken
    ]
    known = {task.paper_index: task.name for task in loaded.tasks if task.paper_index is not None}
    # Which implementation wrote which published log: by its test file's name.
    tests = {
        task.name: {
            PurePosixPath(impl.unit_test_file).stem: impl.index for impl in task.implementations
        }
        for task in loaded.tasks
    }
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
    for name, path in published:
        results = load_published_results(path, system=name)
        system = names.canonical_system(results.system)
        left_out: list[str] = []
        logs_per_task = Counter(names.canonical_task(log.task, known) for log in results.logs)
        for log in results.logs:
            task_key = names.canonical_task(log.task, known)
            index = _implementation_of(log, tests.get(task_key, {}), logs_per_task[task_key])
            measured = metrics.get((task_key, index)) if index is not None else None
            if measured is None:
                left_out.append(f"{log.task}/{log.log_name}")
                continue
            rows.append(
                SuccessRow(
                    system=system,
                    item=f"{task_key}#{index}",
                    success=log.passed,
                    predictors=measured.predictors(),
                )
            )
        if left_out:
            notes.append(
                f"{system} ({path}): {len(left_out)} log(s) left out of the regression (no "
                f"measured implementation of the benchmark): {', '.join(left_out)}"
            )
    if not rows:
        raise UserError(
            "no runs to fit the regression on",
            hint="Give eval output folders or published results whose tasks are tasks of "
            "the benchmark (--benchmark DIR).",
        )
    return rows, notes


def _implementation_of(log: PublishedLog, tests: dict[str, int], logs: int) -> int | None:
    """The implementation whose unit test wrote ``log``: by the test file's name
    (``unit_test_<k>.log``); else, for a task of one implementation with one log here
    (a log named otherwise, or none: a failure in the published statistics), that one."""
    stem = log.log_name.removesuffix(".log")
    if stem in tests:
        return tests[stem]
    if log.test_index is not None and log.test_index in tests.values():
        return log.test_index
    if len(tests) == 1 and logs == 1:
        return next(iter(tests.values()))
    return None
