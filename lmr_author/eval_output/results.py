"""Per-system summaries and ``results.json``, the file later reporting reads.

Unit-test accuracy is the paper's: the fraction of implementations all of whose tests
pass. Runs that failed for reasons of infrastructure (verdict ``infra-error``) are not the
candidate's fault: they are left out of the accuracy and listed apart. ``results.json``
is always rebuilt from the run records on disk, so it can be regenerated at any time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmr_author.atomic import atomic_write_json
from lmr_author.errors import UserError
from lmr_author.eval_output.layout import RESULTS_FILE, RUNS_DIR
from lmr_author.eval_output.records import SCHEMA_VERSION, RunRecord, load_runs
from lmr_author.json_input import load_json
from lmr_author.verdicts import INFRA_ERROR, PASS, VERDICTS

#: The category key of implementations whose info.json names none.
UNCATEGORIZED = "uncategorized"


@dataclass
class CategorySummary:
    implementations: int = 0
    passed: int = 0

    @property
    def accuracy(self) -> float | None:
        return self.passed / self.implementations if self.implementations else None

    def to_json(self) -> dict[str, Any]:
        return {
            "implementations": self.implementations,
            "passed": self.passed,
            "accuracy": self.accuracy,
        }


@dataclass
class SystemSummary:
    """How one system did: accuracy, verdict counts, categories, infrastructure failures."""

    system: str
    #: Implementations counted toward accuracy (all but infrastructure failures).
    implementations: int = 0
    passed: int = 0
    verdicts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    categories: dict[str, CategorySummary] = field(default_factory=dict)
    infra_errors: list[dict[str, Any]] = field(default_factory=list)
    #: The counted runs by where the candidate ran: in a process of its own, or in the
    #: test's (a goal that cannot cross; a candidate there can forge its verdict).
    isolated: CategorySummary = field(default_factory=CategorySummary)
    in_process: CategorySummary = field(default_factory=CategorySummary)

    @property
    def accuracy(self) -> float | None:
        return self.passed / self.implementations if self.implementations else None

    def to_json(self) -> dict[str, Any]:
        return {
            "implementations": self.implementations,
            "passed": self.passed,
            "accuracy": self.accuracy,
            "verdicts": dict(self.verdicts),
            "categories": {name: c.to_json() for name, c in sorted(self.categories.items())},
            "infra_errors": list(self.infra_errors),
            "isolated": self.isolated.to_json(),
            "in_process": self.in_process.to_json(),
        }


@dataclass
class Results:
    """An evaluation's outcome: the summary of every system and the run records."""

    benchmark: str
    systems: dict[str, SystemSummary]
    runs: list[RunRecord]
    #: True when the evaluation was interrupted before every run was done.
    interrupted: bool = False
    schema_version: int = SCHEMA_VERSION

    @property
    def infra_errors(self) -> list[RunRecord]:
        return [run for run in self.runs if run.verdict == INFRA_ERROR]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "benchmark": self.benchmark,
            "interrupted": self.interrupted,
            "systems": {name: s.to_json() for name, s in sorted(self.systems.items())},
            "runs": [run.to_json() for run in self.runs],
        }


def summarize(runs: list[RunRecord]) -> dict[str, SystemSummary]:
    """Summaries per system of ``runs``."""
    systems: dict[str, SystemSummary] = {}
    for run in runs:
        summary = systems.setdefault(run.system, SystemSummary(run.system))
        summary.verdicts[run.verdict] = summary.verdicts.get(run.verdict, 0) + 1
        if not run.counted:
            summary.infra_errors.append(
                {"task": run.task, "implementation": run.implementation, "reason": run.reason}
            )
            continue
        passed = run.verdict == PASS
        summary.implementations += 1
        summary.passed += passed
        category = summary.categories.setdefault(run.category or UNCATEGORIZED, CategorySummary())
        category.implementations += 1
        category.passed += passed
        if run.isolated is not None:
            where = summary.isolated if run.isolated else summary.in_process
            where.implementations += 1
            where.passed += passed
    return systems


def build_results(output: Path, benchmark: str = "", *, interrupted: bool = False) -> Results:
    """Results of every run stored under ``output`` (what ``results.json`` holds)."""
    runs = load_runs(output)
    return Results(benchmark, summarize(runs), runs, interrupted=interrupted)


def save_results(output: Path, results: Results) -> Path:
    """Write ``output/results.json`` atomically; return its path."""
    path = Path(output) / RESULTS_FILE
    atomic_write_json(path, results.to_json())
    return path


def load_results(output_dir: Path) -> Results:
    """The results of an evaluation output folder.

    Reads ``results.json``; when it is missing, rebuilds the results from the run records.
    """
    output = Path(output_dir)
    path = output / RESULTS_FILE
    if not path.is_file():
        if not (output / RUNS_DIR).is_dir():
            raise UserError(
                "no evaluation results here (neither results.json nor runs/)",
                file=output,
                hint="Run 'lmr-author eval' with --output pointing here first.",
            )
        return build_results(output)
    hint = "Delete it; 'lmr-author eval' rebuilds it from runs/."
    data = load_json(path, what="results file", hint=hint)
    try:
        runs = [RunRecord.from_json(item) for item in data["runs"]]
        benchmark = str(data.get("benchmark", ""))
        interrupted = bool(data.get("interrupted", False))
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError) as error:
        raise UserError(f"not a results file ({error!r})", file=path, hint=hint) from None
    return Results(benchmark, summarize(runs), runs, interrupted=interrupted)
