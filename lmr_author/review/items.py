"""The review queue: one item per run (system x task x implementation) of an eval output folder.

Runs, candidate hashes, judgment files and the benchmark folder are found through
`lmr_author.eval_output`, the one owner of that folder's layout, so the review shows the
same candidate identity as the judge and the agreement (a label can be checked against
the code it was given for).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from lmr_author.eval_output import (
    RUN_FILE,
    RUNS_DIR,
    ItemKey,
    StoredRun,
    candidate_file,
    find_benchmark,
    judgment_path,
    load_runs,
    stored_run,
)
from lmr_author.judge.store import read_judgment
from lmr_author.util.errors import UserError


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
    def key(self) -> ItemKey:
        return ItemKey(self.system, self.task, self.implementation)

    @property
    def candidate_path(self) -> Path:
        """The goal file that was tested, or the raw prediction when it could not be spliced."""
        return candidate_file(self.run_dir)

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
    runs_root = output_dir / RUNS_DIR
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
    items = [_item_from_run(stored_run(output_dir, r), output_dir) for r in load_runs(output_dir)]
    if not items:
        raise UserError(
            f"no runs found (expected {RUNS_DIR}/<system>/<task>/<index>/{RUN_FILE})",
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
    """The benchmark folder of the results (`lmr_author.eval_output.find_benchmark`).

    None when the folder has no results.json (the review still shows the candidates).
    """
    return find_benchmark(output_dir)


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


def _item_from_run(run: StoredRun, output_dir: Path) -> ReviewItem:
    record = run.record
    return ReviewItem(
        system=record.system,
        task=record.task,
        implementation=record.implementation,
        run_dir=run.folder,
        candidate_sha256=run.candidate_sha256,
        verdict=record.verdict or "unknown",
        goal_file=record.goal_file,
        goal_function=record.goal_function,
        class_name=record.class_name,
        judgment=_judge_label(
            judgment_path(output_dir, record.system, record.task, record.implementation)
        ),
    )


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
