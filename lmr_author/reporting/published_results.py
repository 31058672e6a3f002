"""Import the published unit-test summaries (``results.txt``, one per agent and model).

The published harness (``evaluation/get_statistics.py`` of LMR-Bench) writes one line per
test log, then totals::

    1-DPO/unit_test_1.log: FAIL (found 2 failure lines)
    13-DecBound/unit_test_1.log: PASS

    Total log files: 6
    Passed files:    3
    Failed files:    3
    Overall pass rate: 50.00%

Some versions of that script write ``PASS fail_count: 0``; it also writes
``<folder> is not a directory`` for a task whose logs are missing and
``[WARN] skip <name> due to lack of info.json`` (without a line break, so the next entry
follows on the same line). Both count as failed files in its totals, and here too; a
``<name> is not a log file`` line is not counted. Anything else is a `UserError` with
the file, the line and what to do. Totals are checked against the counted lines.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from lmr_author.util.errors import UserError
from lmr_author.util.json_input import read_text

RESULTS_FILE = "results.txt"

_LOG_LINE = re.compile(
    r"(?P<task>[^/:\s][^/:]*)/(?P<log>[^/:]+\.log): "
    r"(?:(?P<pass>PASS)(?: fail_count: (?P<pass_count>\d+))?"
    r"|FAIL \(found (?P<fail_count>\d+) failure lines\))"
)
_NO_LOG_FOLDER = re.compile(r"(?P<folder>\S.*) is not a directory")
_NOT_A_LOG = re.compile(r"\S.* is not a log file")
_SKIPPED = re.compile(r"\[WARN\] skip (?P<task>\S+) due to lack of info\.json")
_TOTALS = (
    ("total", re.compile(r"Total log files: *(\d+)")),
    ("passed", re.compile(r"Passed files: *(\d+)")),
    ("failed", re.compile(r"Failed files: *(\d+)")),
    ("rate", re.compile(r"Overall pass rate: *(\d+\.\d{2})%")),
)
_UNIT_TEST_LOG = re.compile(r"unit_test_(\d+)\.log")
_HINT = (
    "Each line must be '<task>/unit_test_<k>.log: PASS' or "
    "'<task>/unit_test_<k>.log: FAIL (found N failure lines)', then the totals lines "
    "written by the published get_statistics.py; restore the file or remove that line."
)


@dataclass(frozen=True)
class PublishedLog:
    """One counted line of a results.txt: a test log of a task, or a task without logs."""

    task: str
    log_name: str
    passed: bool
    failure_lines: int
    line: int

    @property
    def test_index(self) -> int | None:
        """``k`` of ``unit_test_<k>.log``, which is the implementation's unit test."""
        match = _UNIT_TEST_LOG.fullmatch(self.log_name)
        return int(match.group(1)) if match else None

    @property
    def unit_test_file(self) -> str | None:
        """The test file that wrote the log, relative to the repository folder."""
        k = self.test_index
        return f"unit_test/unit_test_{k}.py" if k is not None else None


@dataclass(frozen=True)
class PublishedUnitTests:
    """A parsed results.txt of one system (agent and model)."""

    path: Path
    system: str
    logs: list[PublishedLog] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.logs)

    @property
    def passed(self) -> int:
        return sum(1 for log in self.logs if log.passed)

    @property
    def accuracy(self) -> float:
        """The published accuracy: the share of log files that pass."""
        return self.passed / self.total if self.logs else 0.0


def load_published_results(path: str | Path, system: str | None = None) -> PublishedUnitTests:
    """Parse one results.txt; ``system`` defaults to its folder (``<agent>/<model>``)."""
    source = Path(path)
    if os.path.isdir(source):  # an agent/model folder (isdir never raises, unlike Path's)
        raise UserError(
            "this is a folder, not a results.txt",
            file=source,
            hint=f"Give the {RESULTS_FILE} inside it.",
        )
    missing = UserError(
        "no such file", file=source, hint="Give the path of a published results.txt."
    )
    text = read_text(source, what=RESULTS_FILE, missing=missing)
    if system is None:
        system = "/".join(source.resolve().parent.parts[-2:])
    return parse_published_results(text, source, system)


def parse_published_results(text: str, source: Path, system: str) -> PublishedUnitTests:
    """Parse the text of a results.txt read from ``source``."""
    logs: list[PublishedLog] = []
    totals: dict[str, tuple[str, int]] = {}
    seen: dict[tuple[str, str], int] = {}
    for number, raw in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        if totals:  # after the first totals line only totals may follow
            _read_total(line, number, totals, source)
            continue
        if any(pattern.fullmatch(line) for _, pattern in _TOTALS):
            _read_total(line, number, totals, source)
            continue
        skipped = _SKIPPED.match(line)
        if skipped:  # the published script forgets the line break here
            logs.append(PublishedLog(skipped.group("task"), "", False, 0, number))
            line = line[skipped.end() :].strip()
            if not line:
                continue
        for entry in _read_entry(line, number, source):
            key = (entry.task, entry.log_name)
            if key in seen:
                raise _error(
                    f"{entry.task}/{entry.log_name} is listed twice (first on line {seen[key]})",
                    number,
                    source,
                    hint="Each test log is counted once; remove the repeated line.",
                )
            seen[key] = number
            logs.append(entry)
    _check_totals(logs, totals, source)
    return PublishedUnitTests(path=source, system=system, logs=logs)


def _read_entry(line: str, number: int, source: Path) -> list[PublishedLog]:
    match = _LOG_LINE.fullmatch(line)
    if match:
        passed = match.group("pass") is not None
        count = match.group("pass_count") if passed else match.group("fail_count")
        failures = int(count) if count is not None else 0
        if passed and failures:
            raise _error(f"PASS with fail_count {failures} contradicts itself", number, source)
        return [PublishedLog(match.group("task"), match.group("log"), passed, failures, number)]
    folder = _NO_LOG_FOLDER.fullmatch(line)
    if folder:
        # <eval dir>/<task>/<repo folder>/unit_test/logs: the task had no logs at all.
        parts = PurePosixPath(folder.group("folder")).parts
        task = parts[-4] if len(parts) >= 4 else parts[0]
        return [PublishedLog(task, "", False, 0, number)]
    if _NOT_A_LOG.fullmatch(line):
        return []  # not counted by the published script either
    raise _error(f"cannot read this line: {line[:80]!r}", number, source)


def _read_total(line: str, number: int, totals: dict[str, tuple[str, int]], source: Path) -> None:
    for key, pattern in _TOTALS:
        match = pattern.fullmatch(line)
        if match:
            if key in totals:
                raise _error(f"a second '{line.split(':')[0]}' line", number, source)
            totals[key] = (match.group(1), number)
            return
    raise _error(f"only totals lines may follow the totals, not {line[:80]!r}", number, source)


def _check_totals(
    logs: list[PublishedLog], totals: dict[str, tuple[str, int]], source: Path
) -> None:
    if not totals:
        raise UserError(
            "the totals lines are missing ('Total log files: N' and what follows)",
            file=source,
            hint="The file may be cut short; take it again from the published results.",
        )
    passed = sum(1 for log in logs if log.passed)
    counted = {"total": len(logs), "passed": passed, "failed": len(logs) - passed}
    for key in ("total", "passed", "failed"):
        if key not in totals:
            raise UserError(
                f"the '{key}' totals line is missing",
                file=source,
                hint="The file may be cut short; take it again from the published results.",
            )
        value, number = totals[key]
        if int(value) != counted[key]:
            raise _error(
                f"the totals say {int(value)} but the file lists {counted[key]} ({key} log files)",
                number,
                source,
                hint="The file was edited or cut; take it again from the published results.",
            )
    if logs:
        expected = f"{passed / len(logs) * 100:.2f}"
        if "rate" not in totals:
            raise UserError(
                "the 'Overall pass rate' line is missing",
                file=source,
                hint="The file may be cut short; take it again from the published results.",
            )
        value, number = totals["rate"]
        if value != expected:
            raise _error(
                f"the pass rate says {value}% but {passed} of {len(logs)} is {expected}%",
                number,
                source,
                hint="The file was edited; take it again from the published results.",
            )
    elif "rate" in totals:
        raise _error("a pass rate for no log files", totals["rate"][1], source)


def _error(message: str, number: int, source: Path, hint: str = _HINT) -> UserError:
    return UserError(message, file=source, where=f"line {number}", hint=hint)
