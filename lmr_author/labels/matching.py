"""Line human labels and judge labels up item by item, and say what cannot be counted.

Items are matched on ``(canonical system, paper index or task name, implementation)``
(see `lmr_author.domain.identity`), so published label files, published judge outputs and
our own runs line up without hand edits. Nothing is dropped silently: items one source
has and another lacks, judge answers that could not be parsed, and labels given to a
candidate that has changed since (its hash differs from the run's) are kept in the
result, and the last two are not counted. The statistics are `lmr_author.labels.agreement`'s.

An item is "missing from a source" only when that source should have it: the runs and the
judge (when given) should have every item, and the humans as a group should have labelled
it. One annotator need not label every item (annotators usually split the work), so an
item one annotator labelled and another did not is not missing; how many items two
annotators share is the n of their pairwise agreement.

Filters (``annotators``, ``systems``) keep only some raters and systems; what they left
out is counted in `Matched.filtered_out` so the report can say what is not included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from lmr_author.domain.identity import Identity, natural_key
from lmr_author.domain.item_key import ItemKey
from lmr_author.domain.three_way import ThreeWayLabel
from lmr_author.eval_output import StoredRun
from lmr_author.labels.model import Label
from lmr_author.labels.sources import JudgeSource
from lmr_author.util.errors import UserError

#: The judge's name among the raters (annotators cannot take it).
JUDGE = "LLM judge"
#: The source name of the eval runs among the sources an item can be missing from.
RUNS = "runs"
#: The source name of the human annotators as a group.
HUMANS = "humans"


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
class AnnotatorLabels:
    """How many of an annotator's labels went in, and when they were given (ISO times)."""

    labels: int = 0
    first: str = ""
    last: str = ""

    def add(self, created_at: str) -> None:
        self.labels += 1
        if created_at:
            self.first = min(self.first or created_at, created_at)
            self.last = max(self.last, created_at)


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
    #: Human labels per annotator that went in (stale ones included), with their dates.
    labels_by_annotator: dict[str, AnnotatorLabels] = field(default_factory=dict)
    #: Labels and judge answers the --annotator / --system filters left out, by kind.
    filtered_out: dict[str, int] = field(default_factory=dict)

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
        """Items that a source which should have them does not have (see the module doc)."""
        expected = [JUDGE] if self.has_judge else []
        if self.runs:
            expected = [RUNS, *expected]
        humans = set(self.labels_by_annotator)
        if humans:
            expected.append(HUMANS)
        rows = []
        for item in self.items:
            absent = [
                source
                for source in expected
                if source not in item.sources and not (source == HUMANS and humans & item.sources)
            ]
            if absent:
                rows.append(
                    MissingItem(
                        item.system, item.task, item.implementation, sorted(item.sources), absent
                    )
                )
        return rows


def match_items(
    labels: Sequence[Label],
    judge: JudgeSource | None,
    aliases: Identity | None = None,
    *,
    annotators: Sequence[str] = (),
    systems: Sequence[str] = (),
) -> Matched:
    """Match the human labels with the judge's labels and runs (``judge`` may be None).

    ``annotators`` and ``systems``, when not empty, keep only those annotators' labels and
    those systems' items (any spelling of a system the aliases know). A name that matches
    nothing is a `UserError` listing the names there are.
    """
    aliases = aliases or Identity()
    builder = _Builder(aliases)
    labels, judge, filtered = _filtered(labels, judge, aliases, annotators, systems)
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
        labels_by_annotator=builder.by_annotator,
        filtered_out=filtered,
    )


def _filtered(
    labels: Sequence[Label],
    judge: JudgeSource | None,
    aliases: Identity,
    annotators: Sequence[str],
    systems: Sequence[str],
) -> tuple[Sequence[Label], JudgeSource | None, dict[str, int]]:
    """The labels and judge items the filters keep, and how many of each they dropped."""
    dropped: dict[str, int] = {}
    if annotators:
        known = {label.annotator for label in labels}
        _check_names("--annotator", annotators, known)
        kept = [label for label in labels if label.annotator in set(annotators)]
        dropped["human labels of other annotators"] = len(labels) - len(kept)
        labels = kept
    if systems:
        wanted = {aliases.canonical_system(name) for name in systems}
        known = {aliases.canonical_system(label.system) for label in labels}
        if judge is not None:
            known |= {aliases.canonical_system(x.system) for x in judge.items}
            known |= {aliases.canonical_system(run.system) for run in judge.runs.values()}
        _check_names("--system", sorted(wanted), known)
        kept = [x for x in labels if aliases.canonical_system(x.system) in wanted]
        dropped["human labels of other systems"] = len(labels) - len(kept)
        labels = kept
        if judge is not None:
            items = [x for x in judge.items if aliases.canonical_system(x.system) in wanted]
            runs = {
                key: run
                for key, run in judge.runs.items()
                if aliases.canonical_system(run.system) in wanted
            }
            dropped["judge answers of other systems"] = len(judge.items) - len(items)
            judge = replace(judge, items=items, runs=runs)
    return labels, judge, {what: n for what, n in dropped.items() if n}


def _check_names(option: str, asked: Sequence[str], known: set[str]) -> None:
    unknown = [name for name in asked if name not in known]
    if unknown:
        there = ", ".join(sorted(known, key=natural_key)) or "none"
        raise UserError(
            f"{option} {', '.join(unknown)}: no such name in the labels or the judge outputs",
            where=option,
            hint=f"The names there are: {there}.",
        )


def _sort_key(key: ItemKey) -> tuple[str, int, str, int]:
    system, task, implementation = key
    return (system, int(task) if task.isdigit() else 10**9, task, implementation)


class _Builder:
    """Collects ratings item by item, deciding what is counted and what is flagged."""

    def __init__(self, aliases: Identity) -> None:
        self.aliases = aliases
        self.items: dict[ItemKey, Item] = {}
        self.runs_by_key: dict[ItemKey, StoredRun] = {}
        self.stale: list[StaleLabel] = []
        self.unparsed: list[UnparsedAnswer] = []
        self.notes: list[str] = []
        self.unhashed = 0
        self.by_annotator: dict[str, AnnotatorLabels] = {}

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
            self.by_annotator.setdefault(annotator, AnnotatorLabels()).add(label.created_at)
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
