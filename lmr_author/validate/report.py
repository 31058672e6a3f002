"""Present validation results: a readable report grouped by task, or JSON for machines."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from lmr_author.validate.findings import Finding
from lmr_author.validate.static import TaskReport

_STYLE = {"error": "bold red", "warning": "yellow"}


def summarize(reports: Sequence[TaskReport]) -> dict[str, Any]:
    """Counts over all tasks (the ``summary`` of the JSON output)."""
    by_rule = Counter(f.rule for r in reports for f in r.findings)
    return {
        "tasks": len(reports),
        "tasks_with_errors": sum(1 for r in reports if r.errors),
        "tasks_with_warnings": sum(1 for r in reports if r.warnings),
        "errors": sum(r.errors for r in reports),
        "warnings": sum(r.warnings for r in reports),
        "by_rule": dict(sorted(by_rule.items())),
    }


def to_json(reports: Sequence[TaskReport]) -> dict[str, Any]:
    """``{"tasks": [{"task", "findings": [...]}], "summary": {...}}``."""
    return {"tasks": [r.to_json() for r in reports], "summary": summarize(reports)}


def location(finding: Finding) -> str:
    """``file (where)``, ``file`` or ``where``: the place a finding is about."""
    if finding.file and finding.where:
        return f"{finding.file} ({finding.where})"
    return finding.file or finding.where


def summary_line(reports: Sequence[TaskReport]) -> str:
    counts = summarize(reports)
    tasks = counts["tasks"]
    return (
        f"{tasks} task{'s' if tasks != 1 else ''} checked: "
        f"{counts['tasks_with_errors']} with errors; "
        f"{counts['errors']} error{'s' if counts['errors'] != 1 else ''}, "
        f"{counts['warnings']} warning{'s' if counts['warnings'] != 1 else ''}"
    )


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
