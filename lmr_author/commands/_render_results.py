"""What ``eval`` prints after its runs: missing predictions, then accuracy tables that fit.

Plain lines, not a boxed table: at 80 columns (what a pipe gets) the eight columns of
the per-system table leave a boxed name column 10 wide, and ``wrong-logic`` came out
as ``wrong-logi`` / ``c``. Here every column is as wide as its widest cell, a name is
never cut, and when the line would be too wide a long name goes on a line of its own
with its numbers on the next, as `lmr_author.commands.judge.format_summary` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lmr_author.commands._numbers import percent
from lmr_author.domain.verdicts import INFRA_ERROR

if TYPE_CHECKING:
    from rich.console import Console

    from lmr_author.domain.scoring import Tally
    from lmr_author.eval_loop import Results

#: Spaces between two columns.
GAP = 2


def missing_lines(results: Results) -> list[str]:
    """One line per system whose submission had no candidate for some implementations."""
    from lmr_author.eval_loop import NO_SUBMISSION

    missing: dict[str, int] = {}
    for run in results.runs:
        if run.reason == NO_SUBMISSION:
            missing[run.system] = missing.get(run.system, 0) + 1
    lines = []
    for system, count in sorted(missing.items()):
        total = sum(1 for run in results.runs if run.system == system)
        noun = "implementation" if count == 1 else "implementations"
        lines.append(
            f"{system}: {count} of {total} {noun} had no prediction in the submission "
            "(scored as errors)"
        )
    return lines


def fitted_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], *, keys: int, width: int
) -> list[str]:
    """``rows`` under ``header`` in lines of at most ``width`` where the cells allow it.

    The first ``keys`` columns are names (left-aligned), the rest numbers (right-aligned).
    The first column gives up what the line lacks, down to its header's width; a name
    longer than that goes on a line of its own (whole, never cut), its cells below it.
    """
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    rest = sum(widths[1:]) + GAP * (len(widths) - 1)
    widths[0] = max(len(header[0]), min(widths[0], width - rest))

    def line(cells: Sequence[str]) -> str:
        shown = [
            cell.ljust(size) if i < keys else cell.rjust(size)
            for i, (cell, size) in enumerate(zip(cells, widths, strict=True))
        ]
        return (" " * GAP).join(shown).rstrip()

    lines = [line(header), line(["-" * size for size in widths])]
    for row in rows:
        if len(row[0]) > widths[0]:
            lines += [row[0], line(["", *row[1:]])]
        else:
            lines.append(line(row))
    return lines


def _passed(tally: Tally) -> str:
    return f"{tally.passed}/{tally.counted}"


def print_summary(results: Results, output: Path, console: Console | None = None) -> None:
    """Missing predictions, accuracy per system and per category, infrastructure errors."""
    from rich.console import Console

    from lmr_author.eval_loop import VERDICTS

    console = console or Console()

    def say(text: str, style: str | None = None, *, wrap: bool = False) -> None:
        console.print(text, style=style, markup=False, highlight=False, soft_wrap=not wrap)

    # What is missing comes first: an accuracy over mostly absent answers says little.
    for text in missing_lines(results):
        say(text)
    systems = sorted(results.systems.items())
    say("Unit-test accuracy per system", "bold")
    rows = [
        [
            name,
            percent(score.unit_tests.accuracy),
            _passed(score.unit_tests),
            *(str(score.verdicts.get(verdict, 0)) for verdict in VERDICTS),
        ]
        for name, score in systems
    ]
    header = ["system", "accuracy", "passed", *VERDICTS]
    for text in fitted_table(header, rows, keys=1, width=console.width):
        say(text)
    categories = [
        [name, category, percent(part.accuracy), _passed(part)]
        for name, score in systems
        for category, part in sorted(score.categories.items())
    ]
    if categories:
        say("")
        say("Accuracy per category", "bold")
        header = ["system", "category", "accuracy", "passed"]
        for text in fitted_table(header, categories, keys=2, width=console.width):
            say(text)
    if results.infra_errors:
        say("")
        console.print(
            f"[red]{len(results.infra_errors)} runs failed for reasons of infrastructure[/] "
            "(not counted; run again to retry them):"
        )
        for run in results.infra_errors:
            say(f"  {run.system} {run.task}#{run.implementation}: {run.reason}", wrap=True)
    for text in in_process_lines(results):
        say(text, wrap=True)
    say(f"results: {output / 'results.json'}")


def in_process_lines(results: Results) -> list[str]:
    """The implementations whose candidates ran in the test's process (the golden proof
    kept that choice: a value of the goal could not cross), once each, with why."""
    why: dict[tuple[str, int], str] = {}
    for run in results.runs:
        if run.isolated is False and run.verdict != INFRA_ERROR:
            why.setdefault((run.task, run.implementation), run.not_isolated_why or "not said")
    if not why:
        return []
    lines = [
        "",
        f"{len(why)} implementation(s) ran their candidates in the test's process, where a "
        "candidate written against the test can forge its verdict (counted apart as "
        "in_process in results.json); the golden proof says why:",
    ]
    lines += [f"  {task}#{index}: {text}" for (task, index), text in sorted(why.items())]
    return lines
