"""`validate --run --mutants`: print each implementation's mutation score and survivors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lmr_author.mutation.score import mutation_test
from lmr_author.sandbox.results import Limits
from lmr_author.task import load_task
from lmr_author.validate.runs import Runner


def print_mutation_scores(
    task_dirs: list[Path],
    *,
    base_image: str | None,
    limits: Limits,
    out: Any,
    err: Any,
    runner: Runner | None = None,
) -> None:
    """``limits`` carry ``--timeout``, ``--gpus`` and ``--hf-cache``: mutants run as the
    golden code does; ``runner`` is ``--executor``'s (None: here)."""
    for task_dir in task_dirs:
        task = load_task(task_dir)

        def progress(line: str) -> None:
            err.print(line, highlight=False, markup=False)

        for report in mutation_test(
            task, base_image=base_image, limits=limits, on_progress=progress, runner=runner
        ):
            out.print(
                f"{report.task} #{report.impl_index}: mutation score {report.score:.0%} "
                f"({report.killed} of {report.total - report.errors} mutants killed"
                + (f", {report.errors} not run" if report.errors else "")
                + ")",
                highlight=False,
                markup=False,
            )
            for mutant in report.survivors:
                out.print(
                    f"  survivor {mutant.index} ({mutant.operator}: {mutant.description})",
                    highlight=False,
                    markup=False,
                )
                out.print(mutant.diff, highlight=False, markup=False)
