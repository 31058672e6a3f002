"""When importing the goal module fails while recording: say so, where, and why.

Recording imports the goal module before the driver runs. Research modules often run
notebook-style code at import time, and that code dies on data the checkout lacks,
most often a Git LFS pointer that was never pulled (pandas then reads the pointer's
three lines as a table: ``KeyError: 'intensity'``). The recorder reports such a
failure as one JSON line (`IMPORT_MARKER`); this module turns it into an
error that names the module, the line, the pointers read, and the two ways out:
``git lfs pull``, or guarding the top-level code in the task's copy (`guard`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from lmr_author.util import lfs
from lmr_author.util.errors import UserError

#: The line the recorder writes (to stderr) when importing the goal module failed.
IMPORT_MARKER = "LMR-AUTHOR-IMPORT-FAILED "


@dataclass(frozen=True)
class ImportReport:
    """What the recorder saw when the import failed."""

    module: str
    error: str
    #: (file relative to the repository, line, source line, function) outermost first.
    frames: list[tuple[str, int, str, str]] = field(default_factory=list)
    lfs_pointers: list[str] = field(default_factory=list)

    @property
    def top_level_file(self) -> str | None:
        """The repository file whose top-level code raised (deepest module frame)."""
        modules = [frame for frame in self.frames if frame[3] == "<module>"]
        return modules[-1][0] if modules else None


class GoalImportFailed(UserError):
    """Importing the goal module failed; ``guard_file`` is the module to guard, if any."""

    def __init__(
        self, report: ImportReport, *, goal_file: str, hint: str, guardable: bool = True
    ) -> None:
        self.report = report
        self.guard_file = report.top_level_file if guardable else None
        where = ""
        if report.frames:
            file, line, text, _ = report.frames[-1]
            where = f" at {file}:{line}" + (f" ({text})" if text else "")
        message = f"importing the goal module {goal_file} failed{where}: {report.error}"
        if report.lfs_pointers:
            shown = ", ".join(report.lfs_pointers[:5])
            more = len(report.lfs_pointers) - 5
            message += (
                f". It read Git LFS pointer file(s) instead of data: {shown}"
                + (f" and {more} more" if more > 0 else "")
                + " (the data was never pulled)"
            )
        super().__init__(message, hint=hint)


def parse_report(stderr: str) -> ImportReport | None:
    """The recorder's import report in ``stderr``, if the import failed."""
    for line in reversed(stderr.splitlines()):
        if line.startswith(IMPORT_MARKER):
            try:
                data = json.loads(line[len(IMPORT_MARKER) :])
                return ImportReport(
                    module=str(data["module"]),
                    error=str(data["error"]),
                    frames=[
                        (str(f), int(n), str(t), str(name)) for f, n, t, name in data["frames"]
                    ],
                    lfs_pointers=[str(p) for p in data["lfs_pointers"]],
                )
            except (ValueError, KeyError, TypeError):
                return None
    return None


def raise_if_import_failed(stderr: str, repo_dir: Path | None, goal_file: str) -> None:
    """Raise `GoalImportFailed` when ``stderr`` carries the recorder's import report."""
    report = parse_report(stderr)
    if report is None:
        return
    if not report.lfs_pointers and repo_dir is not None and report.top_level_file:
        report = _with_named_pointers(report, repo_dir)
    if report.error.startswith(("ModuleNotFoundError", "ImportError")):
        # A package the image lacks: no guard helps, the environment must have it.
        raise GoalImportFailed(
            report,
            goal_file=goal_file,
            hint="The task's image lacks a package the goal module imports: add it to the "
            'task\'s requirements.txt (the Environment step, or "requirements" in a spec) '
            "or use a base image that has it (--base-image), and record again.",
            guardable=False,
        )
    target = report.top_level_file
    ways = []
    if report.lfs_pointers:
        ways.append("run 'git lfs pull' in the repository (then record again)")
    if target:
        ways.append(
            f"guard the top-level code of {target} with 'if __name__ == \"__main__\":' in "
            "the task's copy (the Tests step's 'Guard top-level code', or "
            f'"guarded_files": ["{target}"] in a --spec file)'
        )
    hint = "To go on: " + "; or ".join(ways) + "." if ways else "Fix the module's import."
    raise GoalImportFailed(report, goal_file=goal_file, hint=hint)


def _with_named_pointers(report: ImportReport, repo_dir: Path) -> ImportReport:
    """The pointers the failing module names in its source (when no read was seen)."""
    target = report.top_level_file
    if target is None:
        return report
    try:
        source = (repo_dir / target).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return report
    named = [
        pointer.path.relative_to(repo_dir).as_posix()
        for pointer in lfs.pointers_under(repo_dir)
        if pointer.path.name in source
    ]
    return ImportReport(report.module, report.error, report.frames, named[:50])
