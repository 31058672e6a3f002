"""Submissions x tasks -> runs -> results, resumable (unit-test half of scoring).

The public entry point of `lmr_author.evaluation`: the judge and the review TUI read
runs with `load_runs` / `load_results`; the ``eval`` command calls `run_evaluation`.
"""

from __future__ import annotations

from lmr_author.eval_output import (
    NO_SUBMISSION,
    RunRecord,
    TestRecord,
    load_run,
    load_runs,
    run_dir,
)
from lmr_author.evaluation.backend import (
    Backend,
    DockerBackend,
    ImplementationResult,
    PreparedImage,
)
from lmr_author.evaluation.pool import run_evaluation, run_key
from lmr_author.evaluation.submissions import (
    Candidate,
    Prediction,
    Submission,
    load_candidates,
    read_predictions,
)
from lmr_author.evaluation.summary import (
    Results,
    SystemSummary,
    build_results,
    load_results,
    save_results,
    summarize,
)
from lmr_author.verdicts import VERDICTS

__all__ = [
    "NO_SUBMISSION",
    "VERDICTS",
    "Backend",
    "Candidate",
    "DockerBackend",
    "ImplementationResult",
    "Prediction",
    "PreparedImage",
    "Results",
    "RunRecord",
    "Submission",
    "SystemSummary",
    "TestRecord",
    "build_results",
    "load_candidates",
    "load_results",
    "load_run",
    "load_runs",
    "read_predictions",
    "run_dir",
    "run_evaluation",
    "run_key",
    "save_results",
    "summarize",
]
