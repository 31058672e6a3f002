"""The table the regression of Table 5 is fitted on: one row per system × implementation.

Success is the unit-test verdict of the run (``pass``); runs that failed for reasons of
infrastructure are left out, as they are of accuracy. The predictors are the repository
metrics of the run's task (`lmr_author.reporting.repo_metrics`), computed from the task
folders of the benchmark the runs were evaluated on. Tasks that cannot be measured, and
outcomes of tasks the benchmark does not hold, are left out and listed
(`SuccessTable.left_out`), so the coefficient table can say what it rests on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from lmr_author.domain.identity import natural_key, paper_index
from lmr_author.domain.verdicts import PASS
from lmr_author.eval_output import scan_stored_runs
from lmr_author.reporting.regression import LeftOut, SuccessRow
from lmr_author.reporting.repo_metrics import ImplementationMetrics, implementation_metrics
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    from lmr_author.domain.identity import Identity
    from lmr_author.reporting.published_results import PublishedLog


@dataclass
class SuccessTable:
    """The rows to fit, the tasks left out (with what they took away), other notes."""

    rows: list[SuccessRow] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def success_table(
    outputs: Sequence[Path],
    benchmark: Path,
    *,
    published: Sequence[tuple[str | None, Path]] = (),
    identity: Identity | None = None,
) -> SuccessTable:
    """The rows of every counted run of ``outputs`` and of every log line of the
    ``published`` results.txt files (``(system or None, path)``), the tasks left out and
    a note per unreadable run.

    A published log ``<task>/unit_test_<k>.log`` is implementation ``k`` of the task the
    identity matches (``1-DPO`` is ``01-DPO``); its PASS is the success, as the published
    statistics count it.
    """
    from lmr_author.domain.benchmark import load_benchmark
    from lmr_author.domain.identity import load_identity
    from lmr_author.reporting.published_results import load_published_results

    names = identity or load_identity()
    table = SuccessTable()
    left_out: dict[str, LeftOut] = {}  # by canonical task name, in the order found

    def leave_out(task: str, reason: str, detail: str = "", outcomes: int = 0) -> None:
        found = left_out.setdefault(task, LeftOut(task, reason, detail))
        found.outcomes += outcomes

    metrics: dict[tuple[str, int], ImplementationMetrics] = {}
    # Measuring a task needs its repository and golden file: one missing leaves the task
    # out, not the regression.
    loaded = load_benchmark(benchmark, runnable=True, allow_empty=True)
    for item in loaded.broken:
        leave_out(names.canonical_task(item.name), "it cannot be loaded", item.reason)
    known = {task.paper_index: task.name for task in loaded.tasks if task.paper_index is not None}
    for item in loaded.broken:  # so that their logs are named as they are
        if (index := paper_index(item.name)) is not None:
            known.setdefault(index, item.name)
    # Which implementation wrote which published log: by its test file's name.
    tests = {
        names.canonical_task(task.name): {
            PurePosixPath(impl.unit_test_file).stem: impl.index for impl in task.implementations
        }
        for task in loaded.tasks
    }
    for task in loaded.tasks:
        try:
            task_metrics = implementation_metrics(task)
        except UserError as error:
            leave_out(names.canonical_task(task.name), "it cannot be measured", error.message)
            continue
        for found in task_metrics:
            metrics[(names.canonical_task(found.task), found.index)] = found
    for output in outputs:
        runs, problems = scan_stored_runs(output)
        table.notes.extend(problems)
        for run in runs:
            if not run.record.counted:
                continue
            spelt = names.canonical_task(run.task, known)
            measured = metrics.get((spelt, run.implementation))
            if measured is None:
                leave_out(spelt, _not_measured(spelt, tests), outcomes=1)
                continue
            table.rows.append(
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
        logs_per_task = Counter(names.canonical_task(log.task, known) for log in results.logs)
        for log in results.logs:
            task_key = names.canonical_task(log.task, known)
            index = _implementation_of(log, tests.get(task_key, {}), logs_per_task[task_key])
            measured = metrics.get((task_key, index)) if index is not None else None
            if measured is None:
                reason = _not_measured(task_key, tests)
                if task_key in tests and task_key not in left_out and index is None:
                    reason = f"{log.log_name or 'a task without logs'} names no implementation"
                leave_out(task_key, reason, outcomes=1)
                continue
            table.rows.append(
                SuccessRow(
                    system=system,
                    item=f"{task_key}#{index}",
                    success=log.passed,
                    predictors=measured.predictors(),
                )
            )
    table.left_out = sorted(left_out.values(), key=lambda item: natural_key(item.task))
    if not table.rows:
        left = f" ({len(table.left_out)} task(s) left out)" if table.left_out else ""
        raise UserError(
            "no runs to fit the regression on" + left,
            hint="Give eval output folders or published results whose tasks are tasks of "
            "the benchmark (--benchmark DIR).",
        )
    return table


def _not_measured(task: str, tests: dict[str, dict[str, int]]) -> str:
    return "not a task of the benchmark" if task not in tests else "no such implementation"


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
