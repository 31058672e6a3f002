"""The agreement statistics: matched items in, one JSON-ready report out.

`lmr_author.labels.matching` lines the human and judge labels up and says what is not
counted; this module computes the numbers over what is counted: per-system
distributions, percent agreement, direct conflicts, Cohen's and Fleiss' kappas,
Krippendorff's alpha and their bootstrap intervals, through `lmr_author.labels.stats`
(statsmodels, krippendorff, seeded numpy bootstrap).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from lmr_author.labels import stats
from lmr_author.labels.aliases import Aliases
from lmr_author.labels.matching import JUDGE, Item, Matched, MatchKey, match_items
from lmr_author.labels.model import Label
from lmr_author.labels.sources import JudgeSource, RunInfo
from lmr_author.three_way import ThreeWayLabel

REPORT_VERSION = 1

__all__ = ["JUDGE", "REPORT_VERSION", "Options", "analyze", "report_of"]


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
    matched = match_items(labels, judge, aliases)
    judge_input = None if judge is None else {"path": str(judge.path), "kind": judge.kind}
    return report_of(matched, options or Options(), {**(inputs or {}), "judge": judge_input})


def report_of(matched: Matched, options: Options, inputs: dict[str, Any]) -> dict[str, Any]:
    """The report of already matched items; ``inputs`` says where they came from."""
    items = matched.items
    annotators = matched.annotators
    has_judge = matched.has_judge
    report: dict[str, Any] = {
        "schema_version": REPORT_VERSION,
        "inputs": {
            **{k: v for k, v in inputs.items() if k != "judge"},
            "annotators": annotators,
            "judge": inputs.get("judge"),
            "items": len(items),
            "human_labels_counted": matched.human_labels_counted,
            "judge_labels_counted": matched.judge_labels_counted,
            "human_labels_without_hash": matched.unhashed,
            "bootstrap": {
                "resamples": options.bootstrap,
                "seed": options.seed,
                "level": options.level,
            },
        },
        "distribution": _distribution(items, matched.runs, has_judge),
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
    report["disagreements"] = _disagreements(items)
    report["missing"] = [asdict(row) for row in matched.missing()]
    report["stale"] = [asdict(row) for row in matched.stale]
    report["unparsed"] = [asdict(row) for row in matched.unparsed]
    report["notes"] = matched.notes
    return report


# -- the report sections ----------------------------------------------------------------


def _identity(value: int) -> int:
    return value


def _transformed(item: Item, transform: Callable[[int], int]) -> dict[str, int]:
    return {rater: transform(value) for rater, value in item.ratings.items()}


def _category_names(view: str) -> list[str]:
    if view == "binary":
        return ["not CC", "CC"]
    return [ThreeWayLabel(value).short for value in stats.THREE_WAY]


def _counts(values: list[int]) -> dict[str, Any]:
    counter = Counter(values)
    n = len(values)
    counts = {ThreeWayLabel(v).short: counter.get(v, 0) for v in (3, 2, 1)}
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
                "ratings": {r: ThreeWayLabel(v).short for r, v in sorted(item.ratings.items())},
                "comments": dict(sorted(item.comments.items())),
                "direct_conflict": {1, 3} <= values,
                "between_humans": len(set(humans.values())) > 1,
                "verdict": item.verdict,
            }
        )
    return found
