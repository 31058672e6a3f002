"""Draw `lmr-author validate`'s report with rich: findings grouped by task, errors first."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from lmr_author.validate.report import location, summary_line
from lmr_author.validate.static import TaskReport

_STYLE = {"error": "bold red", "warning": "yellow"}


def print_report(console: Console, reports: Sequence[TaskReport]) -> None:
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
        ordered = sorted(report.findings, key=lambda f: f.severity != "error")
        for finding in ordered:
            line = Text("  ")
            line.append(f"{finding.severity:<8}", style=_STYLE.get(finding.severity, ""))
            line.append(f"{finding.rule:<{width}}  ", style="cyan")
            place = location(finding)
            if place:
                line.append(place + ": ", style="bold")
            line.append(finding.message)
            console.print(line)
            if finding.hint:
                console.print(Text("      " + finding.hint, style="dim"))
    console.print(Text(summary_line(reports), style="bold"))
