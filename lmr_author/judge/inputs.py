"""Find the runs to judge in an eval output folder (through `lmr_author.eval_output`).

Each run is one candidate goal file (``candidate.py``; the raw ``prediction.py`` when a
prediction could not be spliced) of one system for one implementation of one task;
``results.json`` says which benchmark folder the tasks come from. A broken run is
reported and skipped, never fatal for the batch.
"""

from __future__ import annotations

from pathlib import Path

from lmr_author.eval_output import StoredRun, read_benchmark, scan_stored_runs


def read_benchmark_path(output_dir: Path) -> Path:
    """The benchmark folder recorded in ``OUTPUT/results.json`` (required for judging)."""
    return read_benchmark(output_dir)


def find_runs(output_dir: Path) -> tuple[list[StoredRun], list[str]]:
    """The runs of an output folder, sorted, and one line per run that cannot be judged."""
    stored, problems = scan_stored_runs(output_dir)
    runs: list[StoredRun] = []
    for run in stored:
        if not run.candidate_path.is_file():
            problems.append(f"{run.run_path}: {run.candidate_path} is missing; run skipped")
            continue
        runs.append(run)
    return runs, problems
