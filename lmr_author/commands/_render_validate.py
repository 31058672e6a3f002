"""Draw `lmr-author validate`'s report with rich: findings by task, errors first, and
the findings of one rule that say the same thing one line with a count and the first
places (`--verbose`: every one)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from lmr_author.validate.report import FindingGroup, group_findings, location, summary_line
from lmr_author.validate.static import TaskReport

_STYLE = {"error": "bold red", "warning": "yellow"}


def print_report(console: Console, reports: Sequence[TaskReport], *, verbose: bool = False) -> None:
    """Findings grouped by task (errors first), then one summary line."""
    width = max((len(f.rule) for r in reports for f in r.findings), default=10)
    for report in reports:
        header = Text(report.name, style="bold")
        if not report.findings:
            header.append("  ok", style="green")
        else:
            parts = []
            if report.errors:
                parts.append(f"{report.errors} error{'s' if report.errors != 1 else ''}")
            if report.warnings:
                parts.append(f"{report.warnings} warning{'s' if report.warnings != 1 else ''}")
            header.append("  " + ", ".join(parts), style="red" if report.errors else "yellow")
        if report.hardware.needs_gpu:  # what a machine must have to run it (info.json)
            header.append(f"  needs {report.hardware.describe()}", style="magenta")
        console.print(header)
        for proof in report.proofs:  # what the "ok" rests on: counts of the --run
            console.print(Text("  " + proof.describe(), style="" if proof.proven else "red"))
        if verbose:
            ordered = sorted(report.findings, key=lambda f: f.severity != "error")
            groups = [FindingGroup((finding,)) for finding in ordered]
        else:
            groups = group_findings(report.findings)
        for group in groups:
            _print_group(console, group, width)
    console.print(Text(summary_line(reports), style="bold"))


def _print_group(console: Console, group: FindingGroup, width: int) -> None:
    line = Text("  ")
    line.append(f"{group.severity:<8}", style=_STYLE.get(group.severity, ""))
    line.append(f"{group.rule:<{width}}  ", style="cyan")
    if group.count == 1:
        place = location(group.first)
        if place:
            line.append(place + ": ", style="bold")
        line.append(group.message)
        console.print(line)
    else:
        line.append(f"{group.count}× ", style="bold")
        line.append(group.message)
        console.print(line)
        places = group.places()
        more = group.count - len(places)
        shown = ", ".join(places) + (f" and {more} more (--verbose: all)" if more > 0 else "")
        console.print(Text(" " * (12 + width) + shown, style="bold"))
    if group.first.hint:
        console.print(Text("      " + group.first.hint, style="dim"))
