"""Validation results as data: JSON for machines, counts and the summary line for people.

Drawing the report is the command's job (`lmr_author.commands._render_validate`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from lmr_author.validate.findings import Finding
from lmr_author.validate.static import TaskReport


def summarize(reports: Sequence[TaskReport]) -> dict[str, Any]:
    """Counts over all tasks (the ``summary`` of the JSON output)."""
    by_rule = Counter(f.rule for r in reports for f in r.findings)
    return {
        "tasks": len(reports),
        "tasks_with_errors": sum(1 for r in reports if r.errors),
        "tasks_with_warnings": sum(1 for r in reports if r.warnings),
        "errors": sum(r.errors for r in reports),
        "warnings": sum(r.warnings for r in reports),
        "tasks_needing_gpu": sum(1 for r in reports if r.hardware.needs_gpu),
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
    line = (
        f"{tasks} task{'s' if tasks != 1 else ''} checked: "
        f"{counts['tasks_with_errors']} with errors; "
        f"{counts['errors']} error{'s' if counts['errors'] != 1 else ''}, "
        f"{counts['warnings']} warning{'s' if counts['warnings'] != 1 else ''}"
    )
    gpu = counts["tasks_needing_gpu"]
    return line + (f"; {gpu} need{'s' if gpu == 1 else ''} a GPU" if gpu else "")
