"""`validate --run --mutants`: each implementation's mutation score, its survivors (with
the key that marks one equivalent) and, for a benchmark, one table of all of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lmr_author.domain.task import load_task
from lmr_author.domain.test_strength import WEAK_SCORE
from lmr_author.mutation.score import MutationReport, mutation_test
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_spec import Runner


def mutation_reports(
    task_dirs: list[Path],
    *,
    base_image: str | None,
    limits: Limits,
    err: Any,
    runner: Runner | None = None,
) -> list[MutationReport]:
    """``limits`` carry ``--timeout``, ``--gpus`` and ``--hf-cache``: mutants run as the
    golden code does; ``runner`` is ``--executor``'s (None: here)."""

    def progress(line: str) -> None:
        err.print(line, highlight=False, markup=False)

    reports: list[MutationReport] = []
    for task_dir in task_dirs:
        reports += mutation_test(
            load_task(task_dir),
            base_image=base_image,
            limits=limits,
            on_progress=progress,
            runner=runner,
        )
    return reports


def print_mutation_reports(reports: list[MutationReport], *, out: Any, verbose: bool) -> None:
    """Each implementation's line and survivors (diffs with ``--verbose``), then the table."""
    from rich.text import Text

    from lmr_author.commands._render_agreement import fit
    from lmr_author.mutation.summary import mutation_table

    def say(text: str, style: str = "") -> None:
        out.print(Text(text, style=style), highlight=False)

    for report in reports:
        equivalent = f", {len(report.equivalent)} equivalent" if report.equivalent else ""
        not_run = f", {report.errors} not run" if report.errors else ""
        say(
            f"{report.task} #{report.impl_index}: mutation score {report.score:.0%} "
            f"({report.killed} of {report.scored} mutants killed{equivalent}{not_run})",
            "bold",
        )
        for mutant in report.survivors:
            say(f"  survivor {mutant.key} ({mutant.operator}: {mutant.description})")
            if verbose:
                say(mutant.diff)
        for mutant, marked in report.equivalent:
            say(f"  equivalent {mutant.key} ({mutant.operator}): {marked.reason}", "dim")
        if report.scored and report.score < WEAK_SCORE:
            say(
                f"  weak tests: fewer than {WEAK_SCORE:.0%} of these wrong answers fail. "
                f"'lmr-author strengthen {report.task}' adds a replay test recorded from what "
                "the golden code does under the task's own test.",
                "yellow",
            )
    if any(report.survivors for report in reports):
        say(
            "A survivor the tests cannot tell apart from the golden code is either a missing "
            "test (add a fixture that kills it) or an equivalent mutant: mark it in info.json, "
            'implementations[i].equivalent_mutants: [{"mutant": KEY, "reason": "..."}]. '
            "--verbose shows each survivor's diff.",
            "dim",
        )
    if len(reports) > 1:
        out.print()
        tables, legend = fit(mutation_table(reports), out.width)
        for table in tables:
            out.print(table)
        if legend:
            say(legend, "dim")
