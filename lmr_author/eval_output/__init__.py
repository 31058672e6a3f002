"""The one owner of the eval output folder: its layout, run records and candidate identity.

``eval`` writes the folder; the judge, the review and the agreement read it. All of
them go through this package: the paths (`layout`), the run records (`records`), the
item key of a run (`lmr_author.domain.item_key.ItemKey`), the candidate hash
(`candidate_sha256`) and the benchmark folder of ``results.json`` (`read_benchmark`).
Which runs count toward accuracy is `lmr_author.domain.verdicts.counts_for_accuracy` (all but
infra-errors), through `RunRecord.counted`.
"""

from __future__ import annotations

from lmr_author.domain.item_key import ItemKey
from lmr_author.eval_output.layout import (
    CANDIDATE_FILE,
    JUDGMENTS_DIR,
    LOGS_DIR,
    PREDICTION_FILE,
    RESULTS_FILE,
    RUN_FILE,
    RUNS_DIR,
    candidate_file,
    candidate_sha256,
    file_sha256,
    find_benchmark,
    is_eval_output,
    judgment_path,
    log_name,
    read_benchmark,
    resolve_benchmark,
    run_dir,
)
from lmr_author.eval_output.records import (
    NO_SUBMISSION,
    RUN_SCHEMA_VERSION,
    SCHEMA_VERSION,
    RunRecord,
    StoredRun,
    TestRecord,
    find_run,
    load_run,
    load_runs,
    save_run,
    scan_runs,
    scan_stored_runs,
    stored_run,
    verify_run,
)

__all__ = [
    "CANDIDATE_FILE",
    "JUDGMENTS_DIR",
    "LOGS_DIR",
    "NO_SUBMISSION",
    "PREDICTION_FILE",
    "RESULTS_FILE",
    "RUNS_DIR",
    "RUN_FILE",
    "RUN_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "ItemKey",
    "RunRecord",
    "StoredRun",
    "TestRecord",
    "candidate_file",
    "candidate_sha256",
    "file_sha256",
    "find_benchmark",
    "find_run",
    "is_eval_output",
    "judgment_path",
    "load_run",
    "load_runs",
    "log_name",
    "read_benchmark",
    "resolve_benchmark",
    "run_dir",
    "save_run",
    "scan_runs",
    "scan_stored_runs",
    "stored_run",
    "verify_run",
]
