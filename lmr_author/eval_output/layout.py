"""Where things are in an eval output folder, and what identifies a candidate.

::

    OUTPUT/results.json                                the summary ('benchmark' names the tasks)
    OUTPUT/runs/<system>/<task>/<index>/run.json       one run (written last: its commit marker)
    OUTPUT/runs/<system>/<task>/<index>/candidate.py   the goal file that was tested
    OUTPUT/runs/<system>/<task>/<index>/prediction.py  the raw prediction (JSONL form)
    OUTPUT/runs/<system>/<task>/<index>/logs/<test file stem>.log
    OUTPUT/judgments/<system>/<task>/<index>.json      the LLM judge's label of one run

The evaluator, the judge, the review and the agreement all find these files through
this module, so they never disagree on a path, a benchmark folder or a candidate hash.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from lmr_author.util.errors import UserError
from lmr_author.util.json_input import load_json

RESULTS_FILE = "results.json"
RUNS_DIR = "runs"
RUN_FILE = "run.json"
CANDIDATE_FILE = "candidate.py"
PREDICTION_FILE = "prediction.py"
LOGS_DIR = "logs"
JUDGMENTS_DIR = "judgments"


def run_dir(output: Path, system: str, task: str, implementation: int) -> Path:
    """The folder of one run inside an evaluation output folder."""
    return Path(output) / RUNS_DIR / system / task / str(implementation)


def judgment_path(output: Path, system: str, task: str, implementation: int) -> Path:
    """The judgment file of one run."""
    return Path(output) / JUDGMENTS_DIR / system / task / f"{implementation}.json"


def log_name(test_file: str) -> str:
    """The log name of a unit test file: ``unit_test/unit_test_1.py`` -> ``unit_test_1.log``."""
    return Path(test_file).stem + ".log"


def is_eval_output(path: Path) -> bool:
    """True for a folder written by ``lmr-author eval`` (results.json, runs/ or judgments/)."""
    return any((Path(path) / name).exists() for name in (RESULTS_FILE, RUNS_DIR, JUDGMENTS_DIR))


def candidate_sha256(data: bytes) -> str:
    """The identity of a candidate: the SHA-256 (hex) of its bytes.

    The run, the judgment and the human label of a candidate all record this value, so a
    label or judgment given for other code is recognised as stale.
    """
    return hashlib.sha256(data).hexdigest()


def candidate_file(folder: Path) -> Path:
    """The code of a run: ``candidate.py``, or the raw prediction when it was not spliced."""
    candidate = folder / CANDIDATE_FILE
    prediction = folder / PREDICTION_FILE
    return prediction if not candidate.exists() and prediction.exists() else candidate


def file_sha256(path: Path) -> str:
    """`candidate_sha256` of a file's bytes; "" when the file is missing."""
    try:
        return candidate_sha256(path.read_bytes())
    except FileNotFoundError:
        return ""


def resolve_benchmark(output: Path, stored: str) -> Path:
    """The benchmark folder that ``benchmark`` of ``OUTPUT/results.json`` names.

    ``eval`` stores an absolute path. A relative one (written by hand, or an output
    folder moved together with its benchmark) is relative to OUTPUT, never to the
    working directory, so every command finds the same folder from anywhere.
    """
    path = Path(stored)
    return path if path.is_absolute() else (Path(output) / path).resolve()


_NOT_EVAL_OUTPUT = "Point at the folder 'lmr-author eval' wrote (it has results.json and runs/)."


def read_benchmark(output: Path) -> Path:
    """The benchmark folder recorded in ``OUTPUT/results.json`` (`resolve_benchmark`)."""
    output = Path(output)
    results = output / RESULTS_FILE
    if not results.is_file():
        raise UserError(
            "no such folder" if not output.is_dir() else "no results.json here",
            file=output if not output.is_dir() else results,
            hint=_NOT_EVAL_OUTPUT,
        )
    return resolve_benchmark(output, _stored_benchmark(results))


def find_benchmark(output: Path) -> Path | None:
    """Like `read_benchmark`, but None when OUTPUT has no results.json."""
    output = Path(output)
    if not output.is_dir():
        raise UserError("no such folder", file=output, hint=_NOT_EVAL_OUTPUT)
    results = output / RESULTS_FILE
    if not results.is_file():
        return None
    return resolve_benchmark(output, _stored_benchmark(results))


def _stored_benchmark(results: Path) -> str:
    """``benchmark`` of a results.json, as stored."""
    data = load_json(results, what="results file", hint="Re-run 'lmr-author eval' to rewrite it.")
    benchmark = data.get("benchmark") if isinstance(data, dict) else None
    if not isinstance(benchmark, str) or not benchmark:
        raise UserError(
            "'benchmark' is missing",
            file=results,
            where="$.benchmark",
            hint="It must hold the path of the benchmark folder that was evaluated; "
            "re-run 'lmr-author eval', which writes it.",
        )
    return benchmark
