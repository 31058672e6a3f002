"""Line human labels and judge labels up item by item, and say what cannot be counted.

Items are matched on ``(canonical system, paper index or task name, implementation)``
(see `lmr_author.labels.aliases`), so published label files, published judge outputs and
our own runs line up without hand edits. Nothing is dropped silently: items one source
has and another lacks, judge answers that could not be parsed, and labels given to a
candidate that has changed since (its hash differs from the run's) are kept in the
result, and the last two are not counted. The statistics are `lmr_author.labels.agreement`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lmr_author.eval_output import StoredRun
from lmr_author.item_key import ItemKey
from lmr_author.labels.aliases import Aliases
from lmr_author.labels.model import Label
from lmr_author.labels.sources import JudgeSource
from lmr_author.three_way import ThreeWayLabel

#: The judge's name among the raters (annotators cannot take it).
JUDGE = "LLM judge"
#: The source name of the eval runs among the sources an item can be missing from.
RUNS = "runs"


@dataclass
class Item:
    """One system × task × implementation and the counted ratings it got."""

    key: ItemKey
    system: str
    task: str
    implementation: int
    ratings: dict[str, int] = field(default_factory=dict)
    comments: dict[str, str] = field(default_factory=dict)
    sources: set[str] = field(default_factory=set)
    verdict: str | None = None


@dataclass(frozen=True)
class StaleLabel:
    """A label given to a candidate that has changed since; not counted."""

    system: str
    task: str
    implementation: int
    rater: str
    label: str
    labelled_sha256: str
    run_sha256: str


@dataclass(frozen=True)
class UnparsedAnswer:
    """A judge answer without a readable category; not counted."""

    system: str
    task: str
    implementation: int
    file: str


@dataclass(frozen=True)
class MissingItem:
    """An item that some expected source (runs, the judge, an annotator) does not have."""

    system: str
    task: str
    implementation: int
    present_in: list[str]
    missing_from: list[str]


@dataclass
class Matched:
    """Every item with its counted ratings, in report order, and what was left out."""

    items: list[Item]
    runs: dict[ItemKey, StoredRun]
    has_judge: bool
    stale: list[StaleLabel] = field(default_factory=list)
    unparsed: list[UnparsedAnswer] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Human labels that carry no candidate hash, so staleness could not be checked.
    unhashed: int = 0

    @property
    def annotators(self) -> list[str]:
        return sorted({a for item in self.items for a in item.ratings if a != JUDGE})

    @property
    def human_labels_counted(self) -> int:
        return sum(1 for item in self.items for rater in item.ratings if rater != JUDGE)

    @property
    def judge_labels_counted(self) -> int:
        return sum(1 for item in self.items if JUDGE in item.ratings)

    def missing(self) -> list[MissingItem]:
        """Items that some expected source does not have."""
        expected = ([JUDGE] if self.has_judge else []) + self.annotators
        if self.runs:
            expected = [RUNS, *expected]
        rows = []
        for item in self.items:
            absent = [source for source in expected if source not in item.sources]
            if absent:
                rows.append(
                    MissingItem(
                        item.system, item.task, item.implementation, sorted(item.sources), absent
                    )
                )
        return rows


def match_items(
    labels: Sequence[Label], judge: JudgeSource | None, aliases: Aliases | None = None
) -> Matched:
    """Match the human labels with the judge's labels and runs (``judge`` may be None)."""
    builder = _Builder(aliases or Aliases())
    if judge is not None:
        builder.add_runs(judge.runs)
        builder.add_judge(judge)
    builder.add_humans(labels)
    return Matched(
        items=sorted(builder.items.values(), key=lambda x: _sort_key(x.key)),
        runs=builder.runs_by_key,
        has_judge=judge is not None,
        stale=builder.stale,
        unparsed=builder.unparsed,
        notes=builder.notes + (judge.problems if judge else []),
        unhashed=builder.unhashed,
    )


def _sort_key(key: ItemKey) -> tuple[str, int, str, int]:
    system, task, implementation = key
    return (system, int(task) if task.isdigit() else 10**9, task, implementation)


class _Builder:
    """Collects ratings item by item, deciding what is counted and what is flagged."""

    def __init__(self, aliases: Aliases) -> None:
        self.aliases = aliases
        self.items: dict[ItemKey, Item] = {}
        self.runs_by_key: dict[ItemKey, StoredRun] = {}
        self.stale: list[StaleLabel] = []
        self.unparsed: list[UnparsedAnswer] = []
        self.notes: list[str] = []
        self.unhashed = 0

    def key(self, system: str, task: str, implementation: int) -> ItemKey:
        return ItemKey(
            self.aliases.canonical_system(system),
            self.aliases.task_key(task),
            implementation,
        )

    def item(self, key: ItemKey, task: str) -> Item:
        item = self.items.get(key)
        if item is None:
            item = self.items[key] = Item(key=key, system=key[0], task=task, implementation=key[2])
        elif "-" not in item.task and "-" in task:
            # Prefer a folder name (``01-DPO``) over a bare paper index (``1``).
            item.task = task
        return item

    def add_runs(self, runs: dict[ItemKey, StoredRun]) -> None:
        for run in runs.values():
            key = self.key(run.system, run.task, run.implementation)
            self.runs_by_key[key] = run
            item = self.item(key, run.task)
            item.sources.add(RUNS)
            item.verdict = run.verdict

    def add_judge(self, judge: JudgeSource) -> None:
        for entry in judge.items:
            key = self.key(entry.system, entry.task, entry.implementation)
            item = self.item(key, entry.task)
            item.sources.add(JUDGE)
            if entry.category is None:
                self.unparsed.append(UnparsedAnswer(key[0], item.task, key[2], entry.origin))
                continue
            run = self.runs_by_key.get(key)
            if run and entry.candidate_sha256 and entry.candidate_sha256 != run.candidate_sha256:
                self.stale.append(
                    StaleLabel(
                        key[0],
                        item.task,
                        key[2],
                        rater=JUDGE,
                        label=ThreeWayLabel(entry.category).short,
                        labelled_sha256=entry.candidate_sha256,
                        run_sha256=run.candidate_sha256,
                    )
                )
                continue
            item.ratings[JUDGE] = entry.category

    def add_humans(self, labels: Sequence[Label]) -> None:
        chosen: dict[tuple[str, ItemKey], Label] = {}
        for label in labels:
            annotator = label.annotator if label.annotator != JUDGE else f"{JUDGE} (human)"
            key = self.key(label.system, label.task, label.implementation)
            previous = chosen.get((annotator, key))
            if previous is not None:
                if previous.label != label.label:
                    self.notes.append(
                        f"{annotator} labelled {key[0]} / {label.task} / {key[2]} twice "
                        f"across the inputs ({previous.label} and {label.label}); "
                        "the later one counts"
                    )
                if previous.created_at > label.created_at:
                    continue
            chosen[(annotator, key)] = label
        for (annotator, key), label in chosen.items():
            item = self.item(key, label.task)
            item.sources.add(annotator)
            run = self.runs_by_key.get(key)
            if not label.candidate_sha256:
                self.unhashed += 1
            elif run and run.candidate_sha256 and label.candidate_sha256 != run.candidate_sha256:
                self.stale.append(
                    StaleLabel(
                        key[0],
                        item.task,
                        key[2],
                        rater=annotator,
                        label=label.name,
                        labelled_sha256=label.candidate_sha256,
                        run_sha256=run.candidate_sha256,
                    )
                )
                continue
            item.ratings[annotator] = label.label
            if label.comment:
                item.comments[annotator] = label.comment
