"""The agreement analysis: human labels and judge labels in, one JSON-ready report out.

Items are matched on ``(canonical system, paper index or task name, implementation)``
(see `lmr_author.labels.aliases`), so published label files, published judge outputs and
our own runs line up without hand edits. Nothing is dropped silently: items that one
source has and another lacks, judge answers that could not be parsed, and labels given
to a candidate that has changed since (its hash differs from the run's) are listed in
the report, and the last two are not counted. The numbers come from
`lmr_author.labels.stats` (statsmodels, krippendorff, seeded numpy bootstrap).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from lmr_author.labels import stats
from lmr_author.labels.aliases import Aliases
from lmr_author.labels.model import LABEL_NAMES, ItemKey, Label
from lmr_author.labels.sources import JudgeSource, RunInfo

#: The judge's name among the raters (annotators cannot take it).
JUDGE = "LLM judge"
REPORT_VERSION = 1

MatchKey = tuple[str, str, int]


@dataclass
class Item:
    """One system × task × implementation and the counted ratings it got."""

    key: MatchKey
    system: str
    task: str
    implementation: int
    ratings: dict[str, int] = field(default_factory=dict)
    comments: dict[str, str] = field(default_factory=dict)
    sources: set[str] = field(default_factory=set)
    verdict: str | None = None


@dataclass(frozen=True)
class Options:
    """How the analysis runs: bootstrap resamples (0 = no intervals), seed, CI level."""

    bootstrap: int = 1000
    seed: int = 0
    level: float = 0.95


def analyze(
    labels: Sequence[Label],
    judge: JudgeSource | None,
    *,
    aliases: Aliases | None = None,
    options: Options | None = None,
    inputs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The full agreement report, as printed by ``lmr-author agreement --json``.

    Keys: ``inputs``; ``distribution`` (per system: unit tests, judge and human CC/LC/LI);
    ``three_way`` and ``binary`` (CC vs not CC), each with ``judge_vs_human`` and
    ``between_annotators``; ``disagreements``; ``missing``; ``stale`` (labels of a changed
    candidate, not counted); ``unparsed`` (judge answers without a category); ``notes``.
    A statistic is ``{"value": float | None, "ci": [low, high] | None}``; None means
    undefined (e.g. kappa when every rating is the same).
    """
    aliases = aliases or Aliases()
    options = options or Options()
    builder = _Builder(aliases)
    if judge is not None:
        builder.add_runs(judge.runs)
        builder.add_judge(judge)
    builder.add_humans(labels)
    items = sorted(builder.items.values(), key=lambda x: _sort_key(x.key))
    annotators = sorted({a for item in items for a in item.ratings if a != JUDGE})
    has_judge = judge is not None
    report: dict[str, Any] = {
        "schema_version": REPORT_VERSION,
        "inputs": {
            **(inputs or {}),
            "annotators": annotators,
            "judge": None if judge is None else {"path": str(judge.path), "kind": judge.kind},
            "items": len(items),
            "human_labels_counted": sum(
                1 for item in items for rater in item.ratings if rater != JUDGE
            ),
            "judge_labels_counted": sum(1 for item in items if JUDGE in item.ratings),
            "human_labels_without_hash": builder.unhashed,
            "bootstrap": {
                "resamples": options.bootstrap,
                "seed": options.seed,
                "level": options.level,
            },
        },
        "distribution": _distribution(items, builder.runs_by_key, has_judge),
    }
    for name, categories, transform in (
        ("three_way", stats.THREE_WAY, _identity),
        ("binary", stats.BINARY, stats.collapse),
    ):
        view = [_transformed(item, transform) for item in items]
        report[name] = {
            "categories": _category_names(name),
            "judge_vs_human": _judge_vs_human(view, annotators, categories, options, name)
            if has_judge
            else None,
            "between_annotators": _between(view, annotators, categories, options, name),
        }
    expected = ([JUDGE] if has_judge else []) + annotators
    if builder.runs_by_key:
        expected = ["runs", *expected]
    report["disagreements"] = _disagreements(items)
    report["missing"] = _missing(items, expected)
    report["stale"] = builder.stale
    report["unparsed"] = builder.unparsed
    report["notes"] = builder.notes + (judge.problems if judge else [])
    return report


# -- matching -----------------------------------------------------------------------


def _sort_key(key: MatchKey) -> tuple[str, int, str, int]:
    system, task, implementation = key
    return (system, int(task) if task.isdigit() else 10**9, task, implementation)


class _Builder:
    """Collects ratings item by item, deciding what is counted and what is flagged."""

    def __init__(self, aliases: Aliases) -> None:
        self.aliases = aliases
        self.items: dict[MatchKey, Item] = {}
        self.runs_by_key: dict[MatchKey, RunInfo] = {}
        self.stale: list[dict[str, Any]] = []
        self.unparsed: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.unhashed = 0

    def key(self, system: str, task: str, implementation: int) -> MatchKey:
        return (
            self.aliases.canonical_system(system),
            self.aliases.task_key(task),
            implementation,
        )

    def item(self, key: MatchKey, task: str) -> Item:
        item = self.items.get(key)
        if item is None:
            item = self.items[key] = Item(key=key, system=key[0], task=task, implementation=key[2])
        elif "-" not in item.task and "-" in task:
            # Prefer a folder name (``01-DPO``) over a bare paper index (``1``).
            item.task = task
        return item

    def add_runs(self, runs: dict[ItemKey, RunInfo]) -> None:
        for run in runs.values():
            key = self.key(run.system, run.task, run.implementation)
            self.runs_by_key[key] = run
            item = self.item(key, run.task)
            item.sources.add("runs")
            item.verdict = run.verdict

    def add_judge(self, judge: JudgeSource) -> None:
        for entry in judge.items:
            key = self.key(entry.system, entry.task, entry.implementation)
            item = self.item(key, entry.task)
            item.sources.add(JUDGE)
            where = {"system": key[0], "task": item.task, "implementation": key[2]}
            if entry.category is None:
                self.unparsed.append({**where, "file": entry.origin})
                continue
            run = self.runs_by_key.get(key)
            if run and entry.candidate_sha256 and entry.candidate_sha256 != run.candidate_sha256:
                self.stale.append(
                    {
                        **where,
                        "rater": JUDGE,
                        "label": LABEL_NAMES[entry.category],
                        "labelled_sha256": entry.candidate_sha256,
                        "run_sha256": run.candidate_sha256,
                    }
                )
                continue
            item.ratings[JUDGE] = entry.category

    def add_humans(self, labels: Sequence[Label]) -> None:
        chosen: dict[tuple[str, MatchKey], Label] = {}
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
                    {
                        "system": key[0],
                        "task": item.task,
                        "implementation": key[2],
                        "rater": annotator,
                        "label": label.name,
                        "labelled_sha256": label.candidate_sha256,
                        "run_sha256": run.candidate_sha256,
                    }
                )
                continue
            item.ratings[annotator] = label.label
            if label.comment:
                item.comments[annotator] = label.comment


# -- the report sections ----------------------------------------------------------------


def _identity(value: int) -> int:
    return value


def _transformed(item: Item, transform: Callable[[int], int]) -> dict[str, int]:
    return {rater: transform(value) for rater, value in item.ratings.items()}


def _category_names(view: str) -> list[str]:
    if view == "binary":
        return ["not CC", "CC"]
    return [LABEL_NAMES[value] for value in stats.THREE_WAY]


def _counts(values: list[int]) -> dict[str, Any]:
    counter = Counter(values)
    n = len(values)
    counts = {LABEL_NAMES[v]: counter.get(v, 0) for v in (3, 2, 1)}
    percent = {name: (100.0 * count / n if n else None) for name, count in counts.items()}
    not_cc = counts["LC"] + counts["LI"]
    return {
        "n": n,
        "counts": counts,
        "percent": percent,
        "not_cc_percent": 100.0 * not_cc / n if n else None,
    }


def _distribution(
    items: list[Item], runs: dict[MatchKey, RunInfo], has_judge: bool
) -> list[dict[str, Any]]:
    """Per system: unit-test accuracy, judge and human CC/LC/LI (the paper's Table 2)."""
    rows = []
    for system in sorted({item.system for item in items}):
        mine = [item for item in items if item.system == system]
        judged = [item.ratings[JUDGE] for item in mine if JUDGE in item.ratings]
        human = [v for item in mine for rater, v in item.ratings.items() if rater != JUDGE]
        verdicts = [run.verdict for key, run in runs.items() if key[0] == system]
        unit = None
        if verdicts:
            passed = sum(1 for verdict in verdicts if verdict == "pass")
            unit = {
                "runs": len(verdicts),
                "passed": passed,
                "accuracy_percent": 100.0 * passed / len(verdicts),
            }
        pairs = [
            (item.ratings[JUDGE], value)
            for item in mine
            if JUDGE in item.ratings
            for rater, value in item.ratings.items()
            if rater != JUDGE
        ]
        a = [x for x, _ in pairs]
        b = [y for _, y in pairs]
        rows.append(
            {
                "system": system,
                "unit_test": unit,
                "judge": _counts(judged) if has_judge else None,
                "human": _counts(human),
                "judge_vs_human": {
                    "pairs": len(pairs),
                    "percent_agreement": stats.percent_agreement(a, b),
                    "direct_conflict_rate": stats.conflict_rate(a, b),
                }
                if has_judge
                else None,
            }
        )
    return rows


def _value(
    estimate: float | None,
    statistic: Callable[[np.ndarray], float | None],
    n_items: int,
    options: Options,
    salt: str,
) -> dict[str, Any]:
    """An estimate with its bootstrap interval.

    The seed is derived from ``--seed`` and ``salt``: statistics of one table share their
    resamples, and adding a rater does not change the intervals of the others.
    """
    interval = None
    if estimate is not None and options.bootstrap > 0:
        seed = options.seed + sum(ord(c) * (i + 1) for i, c in enumerate(salt)) % 100_000
        found = stats.bootstrap_ci(
            statistic, n_items, resamples=options.bootstrap, seed=seed, level=options.level
        )
        if found is not None:
            interval = [found.low, found.high]
    return {"value": estimate, "ci": interval}


def _item_tables(per_item: list[list[tuple[int, int]]], categories: Sequence[int]) -> np.ndarray:
    """Items x k x k: each item's paired ratings as a confusion matrix.

    Resampling items then only sums these (fancy indexing repeats drawn items), so a
    bootstrap resample costs one numpy sum plus one library call.
    """
    k = len(categories)
    tables = np.zeros((len(per_item), k, k), dtype=np.int64)
    for i, pairs in enumerate(per_item):
        if pairs:
            tables[i] = stats.confusion_matrix(
                [x for x, _ in pairs], [y for _, y in pairs], categories
            )
    return tables


def _table_stats(
    tables: np.ndarray, options: Options, salt: str, *, conflicts: bool
) -> dict[str, Any]:
    """Agreement, conflicts, Cohen's kappa and confusion of per-item confusion tables."""
    n = tables.shape[0]
    total = tables.sum(axis=0)

    def measure(function: Callable[[np.ndarray], float | None]) -> Callable[..., Any]:
        def on_items(indices: np.ndarray) -> float | None:
            return function(tables[indices].sum(axis=0))

        return on_items

    def kappa_linear(table: np.ndarray) -> float | None:
        return stats.kappa_of_table(table, "linear")

    result: dict[str, Any] = {
        "n": int(total.sum()),
        "percent_agreement": _value(
            stats.agreement_of_table(total),
            measure(stats.agreement_of_table),
            n,
            options,
            salt,
        ),
        "cohen_kappa": _value(
            stats.kappa_of_table(total), measure(stats.kappa_of_table), n, options, salt
        ),
        "cohen_kappa_linear": _value(kappa_linear(total), measure(kappa_linear), n, options, salt),
        "confusion": total.tolist(),
    }
    if conflicts:
        result["direct_conflict_rate"] = _value(
            stats.conflicts_of_table(total),
            measure(stats.conflicts_of_table),
            n,
            options,
            salt,
        )
    return result


def _judge_vs_human(
    view: list[dict[str, int]],
    annotators: list[str],
    categories: Sequence[int],
    options: Options,
    name: str,
) -> dict[str, Any]:
    """LLM-human agreement over every (item, annotator) pair, pooled and per annotator.

    Pooled intervals resample items (all pairs of an item move together).
    """
    three_way = name == "three_way"
    per_item = [
        [(ratings[JUDGE], ratings[a]) for a in annotators if a in ratings]
        for ratings in view
        if JUDGE in ratings
    ]
    per_item = [pairs for pairs in per_item if pairs]
    pooled = _table_stats(
        _item_tables(per_item, categories), options, name + "jh", conflicts=three_way
    )
    result: dict[str, Any] = {
        "pairs": pooled.pop("n"),
        "items": len(per_item),
        **pooled,
        "confusion_axes": {"rows": JUDGE, "columns": "human"},
        "per_annotator": [],
    }
    for annotator in annotators:
        pairs = [[(r[JUDGE], r[annotator])] for r in view if JUDGE in r and annotator in r]
        result["per_annotator"].append(
            {
                "annotator": annotator,
                **_table_stats(
                    _item_tables(pairs, categories),
                    options,
                    f"{name}jh{annotator}",
                    conflicts=three_way,
                ),
            }
        )
    return result


def _between(
    view: list[dict[str, int]],
    annotators: list[str],
    categories: Sequence[int],
    options: Options,
    name: str,
) -> dict[str, Any]:
    """Pairwise Cohen's kappa, Krippendorff's alpha and Fleiss' kappa between raters."""
    three_way = name == "three_way"
    level: Literal["nominal", "ordinal"] = "ordinal" if three_way else "nominal"
    pairwise = []
    for first, second in itertools.combinations(annotators, 2):
        pairs = [[(r[first], r[second])] for r in view if first in r and second in r]
        pairwise.append(
            {
                "annotators": [first, second],
                **_table_stats(
                    _item_tables(pairs, categories),
                    options,
                    f"{name}{first}|{second}",
                    conflicts=three_way,
                ),
            }
        )
    result: dict[str, Any] = {"pairwise": pairwise}
    groups = {"humans": annotators}
    if any(JUDGE in r for r in view):
        groups["humans_and_judge"] = [*annotators, JUDGE]
    for group, raters in groups.items():
        rated = [[r[x] for x in raters if x in r] for r in view]
        counts = stats.category_counts([row for row in rated if row], categories)

        def alpha(indices: np.ndarray, counts: np.ndarray = counts) -> float | None:
            return stats.alpha_of_counts(counts[indices], categories, level)

        result[f"krippendorff_alpha_{group}"] = {
            "level": level,
            "raters": len(raters),
            "items": int((counts.sum(axis=1) >= 2).sum()),
            **_value(
                stats.alpha_of_counts(counts, categories, level),
                alpha,
                counts.shape[0],
                options,
                f"{name}{group}alpha",
            ),
        }
        complete = stats.category_counts(
            [row for row in rated if len(row) == len(raters)], categories
        )
        fleiss: dict[str, Any] = {
            "raters": len(raters),
            "items": int(complete.shape[0]),
            "items_left_out": counts.shape[0] - complete.shape[0],
        }
        if len(raters) < 2:
            fleiss.update(value=None, ci=None, note="needs at least two raters")
        else:

            def fleiss_stat(indices: np.ndarray, complete: np.ndarray = complete) -> float | None:
                return stats.fleiss_of_counts(complete[indices])

            fleiss.update(
                _value(
                    stats.fleiss_of_counts(complete),
                    fleiss_stat,
                    complete.shape[0],
                    options,
                    f"{name}{group}fleiss",
                )
            )
            fleiss["note"] = "over the items every one of these raters labelled"
        result[f"fleiss_kappa_{group}"] = fleiss
    return result


def _disagreements(items: list[Item]) -> list[dict[str, Any]]:
    """Items whose counted raters do not all agree, for adjudication."""
    found = []
    for item in items:
        values = set(item.ratings.values())
        if len(values) < 2:
            continue
        humans = {r: v for r, v in item.ratings.items() if r != JUDGE}
        found.append(
            {
                "system": item.system,
                "task": item.task,
                "implementation": item.implementation,
                "ratings": {r: LABEL_NAMES[v] for r, v in sorted(item.ratings.items())},
                "comments": dict(sorted(item.comments.items())),
                "direct_conflict": {1, 3} <= values,
                "between_humans": len(set(humans.values())) > 1,
                "verdict": item.verdict,
            }
        )
    return found


def _missing(items: list[Item], expected: list[str]) -> list[dict[str, Any]]:
    """Items that some expected source (runs, judge, an annotator) does not have."""
    rows = []
    for item in items:
        absent = [source for source in expected if source not in item.sources]
        if absent:
            rows.append(
                {
                    "system": item.system,
                    "task": item.task,
                    "implementation": item.implementation,
                    "present_in": sorted(item.sources),
                    "missing_from": absent,
                }
            )
    return rows
