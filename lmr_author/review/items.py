"""The review queue: one item per run (system x task x implementation) of an eval output folder.

Reads the shared eval output format (runs through `lmr_author.evaluate.load_runs`,
judgments through `lmr_author.judge.store`)::

    OUTPUT/results.json                                {"benchmark": "<abs path>", ...}
    OUTPUT/runs/<system>/<task>/<index>/run.json       one run
    OUTPUT/runs/<system>/<task>/<index>/candidate.py   the candidate goal file that was tested
    OUTPUT/runs/<system>/<task>/<index>/prediction.py  the raw prediction, if not spliced
    OUTPUT/judgments/<system>/<task>/<index>.json      the LLM judge's label, if any

The candidate's identity is the run's ``candidate_sha256`` (the SHA-256 of the tested
goal file, the same value the judge records), or the hash of the file when the run has
none, so a label can be checked against the code it was given for.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.errors import UserError
from lmr_author.evaluate import RunRecord, load_runs
from lmr_author.judge.store import judgment_path, read_judgment

RESULTS_FILE = "results.json"
CANDIDATE_FILE = "candidate.py"
PREDICTION_FILE = "prediction.py"

#: (system, task, implementation) -- the key the label store uses.
ReviewKey = tuple[str, str, int]


@dataclass(frozen=True)
class JudgeLabel:
    """The LLM judge's verdict on one candidate, as far as the review shows it."""

    label: str  # "LI" | "LC" | "CC" | "unparsed"
    category: int | None
    candidate_sha256: str
    model: str = ""
    error: str = ""  # why the judgment file could not be read, if it could not


@dataclass(frozen=True)
class ReviewItem:
    """One thing to label: a system's candidate for one implementation of one task."""

    system: str
    task: str
    implementation: int  # 1-based, as in info.json
    run_dir: Path
    candidate_sha256: str
    verdict: str  # the unit-test verdict of the run: pass / fail / error / timeout / ...
    goal_file: str = ""
    goal_function: str = ""
    class_name: str = ""
    judgment: JudgeLabel | None = None

    @property
    def key(self) -> ReviewKey:
        return (self.system, self.task, self.implementation)

    @property
    def candidate_path(self) -> Path:
        """The goal file that was tested, or the raw prediction when it could not be spliced."""
        path = self.run_dir / CANDIDATE_FILE
        prediction = self.run_dir / PREDICTION_FILE
        return prediction if not path.exists() and prediction.exists() else path

    @property
    def qualified_name(self) -> str:
        """``Class.function`` for methods, ``function`` otherwise."""
        if self.class_name:
            return f"{self.class_name}.{self.goal_function}"
        return self.goal_function

    @property
    def judgment_is_current(self) -> bool:
        """Whether the judge's label was given for this very candidate."""
        if self.judgment is None:
            return False
        return not self.judgment.candidate_sha256 or (
            self.judgment.candidate_sha256 == self.candidate_sha256
        )


def load_review_items(output_dir: Path) -> list[ReviewItem]:
    """Every run of the eval output folder ``output_dir`` as a review item, in a stable order.

    Order: system, task, implementation. Raises `UserError` when the folder holds no runs
    or a run.json cannot be read.
    """
    runs_root = output_dir / "runs"
    if not output_dir.is_dir():
        raise UserError(
            "no such folder",
            file=output_dir,
            hint="Give the output folder of 'lmr-author eval' (default ./lmr-results).",
        )
    if not runs_root.is_dir():
        raise UserError(
            "no 'runs' folder here, so there is nothing to review",
            file=output_dir,
            hint="Run 'lmr-author eval' first, or give the folder it wrote its results to.",
        )
    items = [_item_from_run(record, output_dir) for record in load_runs(output_dir)]
    if not items:
        raise UserError(
            "no runs found (expected runs/<system>/<task>/<index>/run.json)",
            file=runs_root,
            hint="Run 'lmr-author eval' first; it writes one run.json per implementation.",
        )
    items.sort(key=lambda item: (item.system, item.task, item.implementation))
    return items


def load_queue(
    output_dir: Path, *, sample: int | None = None, seed: int = 0
) -> tuple[list[ReviewItem], Path | None]:
    """The items to review (all, or a seeded sample) and the benchmark folder they come from."""
    items = load_review_items(output_dir)
    if sample is not None:
        items = sample_items(items, sample, seed)
    return items, read_benchmark_dir(output_dir)


def read_benchmark_dir(output_dir: Path) -> Path | None:
    """The benchmark folder the results were made from (``benchmark`` in results.json)."""
    results_file = output_dir / RESULTS_FILE
    if not results_file.is_file():
        return None
    data = _read_json(results_file)
    benchmark = data.get("benchmark")
    if not isinstance(benchmark, str) or not benchmark:
        raise UserError(
            "'benchmark' must name the benchmark folder the results were made from",
            file=results_file,
            where="$.benchmark",
            hint="Re-run 'lmr-author eval', which writes it.",
        )
    return Path(benchmark)


def sample_items(items: list[ReviewItem], size: int, seed: int = 0) -> list[ReviewItem]:
    """A seeded random sample of ``size`` items, kept in queue order.

    The same items, size and seed always give the same sample, so annotators who share
    a seed label the same items.
    """
    if size < 1:
        raise UserError(
            f"the sample size must be at least 1, got {size}",
            where="--sample",
            hint="Give a positive number of items, or leave --sample out to review all.",
        )
    if size >= len(items):
        return list(items)
    chosen = set(random.Random(seed).sample(range(len(items)), size))
    return [item for position, item in enumerate(items) if position in chosen]


def candidate_sha256(path: Path) -> str:
    """SHA-256 (hex) of a candidate file's bytes; "" when the file is missing."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return ""


def _item_from_run(record: RunRecord, output_dir: Path) -> ReviewItem:
    run_dir = output_dir / "runs" / record.system / record.task / str(record.implementation)
    item = ReviewItem(
        system=record.system,
        task=record.task,
        implementation=record.implementation,
        run_dir=run_dir,
        candidate_sha256="",
        verdict=record.verdict or "unknown",
        goal_file=record.goal_file,
        goal_function=record.goal_function,
        class_name=record.class_name,
        judgment=_judge_label(
            judgment_path(output_dir, record.system, record.task, record.implementation)
        ),
    )
    # The run's own hash is the identity the judge uses too; hash the file if it has none.
    sha = record.candidate_sha256 or candidate_sha256(item.candidate_path)
    return dataclasses.replace(item, candidate_sha256=sha)


def _judge_label(path: Path) -> JudgeLabel | None:
    """The judge's label for one run; a broken file must not block human review."""
    if not path.is_file():
        return None
    try:
        judgment = read_judgment(path)
    except UserError as error:
        return JudgeLabel(label="unreadable", category=None, candidate_sha256="", error=str(error))
    return JudgeLabel(
        label=judgment.label,
        category=judgment.category,
        candidate_sha256=judgment.candidate_sha256,
        model=judgment.model,
    )


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise UserError(
            f"cannot read the file ({error.strerror})", file=path, hint="Check permissions."
        ) from None
    except UnicodeDecodeError:
        raise UserError("not UTF-8 text", file=path, hint="Re-run 'lmr-author eval'.") from None
    except json.JSONDecodeError as error:
        raise UserError(
            f"invalid JSON: {error.msg}",
            file=path,
            where=f"line {error.lineno}, column {error.colno}",
            hint="Re-run 'lmr-author eval' to rewrite it.",
        ) from None
    if not isinstance(data, dict):
        raise UserError(
            "must hold a JSON object", file=path, where="$", hint="Re-run 'lmr-author eval'."
        )
    return data
