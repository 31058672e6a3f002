"""The eval loop: submissions x tasks -> runs -> results, resumable (unit tests).

Modules: ``submissions`` (folders and predictions files -> one candidate per
implementation), ``backend`` (the seam to the sandbox), ``pool`` (the worker pool,
resume, signals). The eval output folder they write (run records, run keys,
``results.json``) is `lmr_author.eval_output`'s. The ``eval`` command calls
`run_evaluation`; readers of results use `load_runs` / `load_results`.
"""

from __future__ import annotations

from lmr_author.domain.scoring import SystemScore
from lmr_author.domain.verdicts import VERDICTS
from lmr_author.eval_loop.backend import (
    Backend,
    DockerBackend,
    ImplementationResult,
    PreparedImage,
)
from lmr_author.eval_loop.pool import run_evaluation
from lmr_author.eval_loop.submissions import (
    Candidate,
    Prediction,
    Submission,
    load_candidates,
    read_predictions,
)
from lmr_author.eval_output import (
    NO_SUBMISSION,
    RunRecord,
    TestRecord,
    load_run,
    load_runs,
    run_dir,
)
from lmr_author.eval_output.results import (
    Results,
    build_results,
    load_results,
    save_results,
    summarize,
)
from lmr_author.eval_output.run_key import run_key

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
    "SystemScore",
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
