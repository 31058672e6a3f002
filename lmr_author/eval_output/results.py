"""Per-system summaries and ``results.json``, the file later reporting reads.

Unit-test accuracy is the paper's: the fraction of implementations all of whose tests
pass. Runs that failed for reasons of infrastructure (verdict ``infra-error``) are not the
candidate's fault: they are left out of the accuracy and listed apart. ``results.json``
is always rebuilt from the run records on disk, so it can be regenerated at any time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.domain.scoring import SystemScore, Tally, score_runs
from lmr_author.domain.verdicts import INFRA_ERROR
from lmr_author.eval_output.layout import RESULTS_FILE, RUNS_DIR
from lmr_author.eval_output.records import SCHEMA_VERSION, RunRecord, load_runs
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import load_json


def _tally_json(tally: Tally) -> dict[str, Any]:
    return {
        "implementations": tally.counted,
        "passed": tally.passed,
        "accuracy": tally.accuracy,
    }


def system_json(score: SystemScore) -> dict[str, Any]:
    """One system of ``results.json``: accuracy, verdict counts, categories, infra-errors."""
    return {
        **_tally_json(score.unit_tests),
        "verdicts": dict(score.verdicts),
        "categories": {name: _tally_json(c) for name, c in sorted(score.categories.items())},
        "infra_errors": list(score.infra_errors),
        "isolated": _tally_json(score.isolated),
        "in_process": _tally_json(score.in_process),
    }


@dataclass
class Results:
    """An evaluation's outcome: the summary of every system and the run records."""

    benchmark: str
    systems: dict[str, SystemScore]
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
            "systems": {name: system_json(s) for name, s in sorted(self.systems.items())},
            "runs": [run.to_json() for run in self.runs],
        }


def summarize(runs: list[RunRecord]) -> dict[str, SystemScore]:
    """The row of every system of ``runs`` (`lmr_author.domain.scoring`)."""
    return score_runs(runs)


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
