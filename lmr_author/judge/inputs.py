"""Find the runs to judge in an eval output folder (``OUTPUT/runs/**/run.json``).

Each run is one candidate goal file (``candidate.py`` beside ``run.json``; the raw
``prediction.py`` when a prediction could not be spliced) of one system for one
implementation of one task; ``results.json`` says which benchmark folder the
tasks come from. A broken run is reported and skipped, never fatal for the batch.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from lmr_author.errors import UserError

RESULTS_FILE = "results.json"
RUNS_DIR = "runs"
CANDIDATE_FILE = "candidate.py"
#: The raw prediction of a JSONL submission, kept when it could not be spliced.
PREDICTION_FILE = "prediction.py"


@dataclass(frozen=True)
class RunToJudge:
    """One run of the unit-test half of scoring, as the judge needs it."""

    system: str
    task: str
    implementation: int
    verdict: str
    run_path: Path
    candidate_path: Path
    candidate_sha256: str


def read_benchmark_path(output_dir: Path) -> Path:
    """The benchmark folder recorded in ``OUTPUT/results.json``."""
    results = output_dir / RESULTS_FILE
    hint = "Point at the folder 'lmr-author eval' wrote (it has results.json and runs/)."
    if not output_dir.is_dir():
        raise UserError("no such folder", file=output_dir, hint=hint)
    try:
        data = json.loads(results.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError("no results.json here", file=results, hint=hint) from None
    except (OSError, ValueError) as error:
        raise UserError(f"cannot read results.json ({error})", file=results, hint=hint) from None
    benchmark = data.get("benchmark") if isinstance(data, dict) else None
    if not isinstance(benchmark, str) or not benchmark:
        raise UserError(
            "'benchmark' is missing",
            file=results,
            where="$.benchmark",
            hint="It must hold the path of the benchmark folder that was evaluated.",
        )
    path = Path(benchmark)
    return path if path.is_absolute() else (output_dir / path).resolve()


def find_runs(output_dir: Path) -> tuple[list[RunToJudge], list[str]]:
    """The runs of an output folder, sorted, and one line per run that cannot be read."""
    from lmr_author.evaluation.records import RUN_FILE, run_dir, scan_runs

    records, problems = scan_runs(output_dir)
    runs: list[RunToJudge] = []
    for record in records:
        folder = run_dir(output_dir, record.system, record.task, record.implementation)
        candidate = folder / CANDIDATE_FILE
        if not candidate.exists() and (folder / PREDICTION_FILE).exists():
            candidate = folder / PREDICTION_FILE  # judge what the system wrote, unspliced
        try:
            digest = hashlib.sha256(candidate.read_bytes()).hexdigest()
        except OSError as error:
            problems.append(f"{folder / RUN_FILE}: {error.filename} is missing; run skipped")
            continue
        runs.append(
            RunToJudge(
                system=record.system,
                task=record.task,
                implementation=record.implementation,
                verdict=record.verdict,
                run_path=folder / RUN_FILE,
                candidate_path=candidate,
                candidate_sha256=digest,
            )
        )
    return runs, problems
