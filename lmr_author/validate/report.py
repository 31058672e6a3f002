"""Validation results as data: JSON for machines, counts and the summary line for people.

Drawing the report is the command's job (`lmr_author.commands._render_validate`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
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


#: Places a grouped finding names before "and N more".
FIRST_PLACES = 3


@dataclass(frozen=True)
class FindingGroup:
    """Findings of one rule and severity that say the same thing of different places.

    86 Git LFS pointers are one line with a count and the first paths, not 172 lines;
    ``--verbose`` (or `findings`) gives each one.
    """

    findings: tuple[Finding, ...]

    @property
    def first(self) -> Finding:
        return self.findings[0]

    @property
    def rule(self) -> str:
        return self.first.rule

    @property
    def severity(self) -> str:
        return self.first.severity

    @property
    def count(self) -> int:
        return len(self.findings)

    @property
    def message(self) -> str:
        """The message they share (numbers that differ, such as sizes, left out)."""
        if self.count == 1:
            return self.first.message
        return _shared_message([f.message for f in self.findings])

    def places(self, limit: int | None = FIRST_PLACES) -> list[str]:
        shown = [location(f) for f in self.findings if location(f)]
        return shown if limit is None else shown[:limit]

    def describe(self, limit: int | None = FIRST_PLACES) -> str:
        """One line: ``rule: message (N×: a, b, c and N more)``."""
        if self.count == 1:
            place = location(self.first)
            return f"{self.rule}: {place + ': ' if place else ''}{self.message}"
        places = self.places(limit)
        more = self.count - len(places)
        where = ", ".join(places) + (f" and {more} more" if more > 0 else "")
        return f"{self.rule}: {self.message} ({self.count}×: {where})"


def group_findings(findings: Iterable[Finding]) -> list[FindingGroup]:
    """Findings grouped by (severity, rule, hint), errors first, in first-seen order."""
    groups: dict[tuple[str, str, str], list[Finding]] = {}
    for finding in findings:
        groups.setdefault((finding.severity, finding.rule, finding.hint), []).append(finding)
    ordered = sorted(groups.values(), key=lambda items: items[0].severity != "error")
    return [FindingGroup(tuple(items)) for items in ordered]


_NUMBER = re.compile(r"\s*\([^()]*\d[^()]*\)|\d[\d,.]*")


def _shared_message(messages: list[str]) -> str:
    """The messages without what varies between them, when that makes them one."""
    if len(set(messages)) == 1:
        return messages[0]
    stripped = {" ".join(_NUMBER.sub("", m).split()) for m in messages}
    if len(stripped) == 1:
        return stripped.pop()
    return messages[0] + " (and others like it)"
