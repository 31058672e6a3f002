"""The agreement statistics: matched items in, one JSON-ready report out.

`lmr_author.labels.matching` lines the human and judge labels up and says what is not
counted; this module computes the numbers over what is counted: per-system
distributions, percent agreement, direct conflicts, Cohen's and Fleiss' kappas,
Krippendorff's alpha and their bootstrap intervals, through `lmr_author.labels.stats`
(statsmodels, krippendorff, seeded numpy bootstrap).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from lmr_author.domain.identity import Identity
from lmr_author.domain.item_key import ItemKey
from lmr_author.domain.scoring import SystemScore
from lmr_author.domain.three_way import ThreeWayLabel
from lmr_author.eval_output import StoredRun
from lmr_author.labels import stats
from lmr_author.labels.agreement_report import (
    AgreementReport,
    Alpha,
    AnnotatorAgreement,
    BetweenAnnotators,
    Bootstrap,
    Disagreement,
    Fleiss,
    GroupAgreement,
    JudgeVsHuman,
    PairAgreement,
    ReportInputs,
    Statistic,
    SystemJudgeVsHuman,
    TableStats,
    ViewAgreement,
)
from lmr_author.labels.matching import JUDGE, Item, Matched, match_items
from lmr_author.labels.model import Label
from lmr_author.labels.sources import JudgeSource

__all__ = ["JUDGE", "Options", "analyze", "report_of"]


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
    aliases: Identity | None = None,
    options: Options | None = None,
    inputs: dict[str, Any] | None = None,
    annotators: Sequence[str] = (),
    systems: Sequence[str] = (),
) -> AgreementReport:
    """The full agreement report; ``to_json()`` is what ``lmr-author agreement --json`` prints.

    ``inputs`` are the caller's own notes on where the labels came from, kept in the
    report's inputs. Items one source lacks, stale labels (of a changed candidate) and
    unparsed judge answers are listed and not counted. A `Statistic` whose value is None
    is undefined (e.g. kappa when every rating is the same). ``annotators`` and ``systems``
    keep only those (see `lmr_author.labels.matching.match_items`).
    """
    matched = match_items(labels, judge, aliases, annotators=annotators, systems=systems)
    source = None if judge is None else {"path": str(judge.path), "kind": judge.kind}
    filters = {"annotators": list(annotators), "systems": list(systems)}
    return report_of(
        matched, options or Options(), judge=source, described=inputs or {}, filters=filters
    )


def report_of(
    matched: Matched,
    options: Options,
    *,
    judge: dict[str, str] | None = None,
    described: dict[str, Any] | None = None,
    filters: dict[str, list[str]] | None = None,
) -> AgreementReport:
    """The report of already matched items; ``judge`` names the judge source, if any."""
    items = matched.items
    annotators = matched.annotators
    has_judge = matched.has_judge
    views = {}
    for name, categories, transform in (
        ("three_way", stats.THREE_WAY, _identity),
        ("binary", stats.BINARY, stats.collapse),
    ):
        view = [_transformed(item, transform) for item in items]
        views[name] = ViewAgreement(
            categories=_category_names(name),
            judge_vs_human=_judge_vs_human(view, annotators, categories, options, name)
            if has_judge
            else None,
            between_annotators=_between(view, annotators, categories, options, name),
        )
    distribution, versus = _distribution(items, matched.runs)
    return AgreementReport(
        inputs=ReportInputs(
            annotators=annotators,
            judge=judge,
            items=len(items),
            human_labels_counted=matched.human_labels_counted,
            judge_labels_counted=matched.judge_labels_counted,
            human_labels_without_hash=matched.unhashed,
            bootstrap=Bootstrap(options.bootstrap, options.seed, options.level),
            described=dict(described or {}),
            annotator_labels=dict(sorted(matched.labels_by_annotator.items())),
            filters=dict(filters or {}),
            filtered_out=dict(matched.filtered_out),
        ),
        distribution=distribution,
        judge_vs_human=versus if has_judge else None,
        three_way=views["three_way"],
        binary=views["binary"],
        disagreements=_disagreements(items),
        missing=matched.missing(),
        stale=list(matched.stale),
        unparsed=list(matched.unparsed),
        notes=list(matched.notes),
    )


# -- the report sections ----------------------------------------------------------------


def _identity(value: int) -> int:
    return value


def _transformed(item: Item, transform: Callable[[int], int]) -> dict[str, int]:
    return {rater: transform(value) for rater, value in item.ratings.items()}


def _category_names(view: str) -> list[str]:
    if view == "binary":
        return ["not CC", "CC"]
    return [ThreeWayLabel(value).short for value in stats.THREE_WAY]


def _distribution(
    items: list[Item], runs: dict[ItemKey, StoredRun]
) -> tuple[list[SystemScore], dict[str, SystemJudgeVsHuman]]:
    """Per system: unit-test accuracy, judge and human CC/LC/LI (the paper's Table 2), and
    the judge against the humans. Unit tests count as everywhere (`lmr_author.domain.scoring`)."""
    rows = []
    versus = {}
    for system in sorted({item.system for item in items}):
        score = SystemScore(system)
        for key, run in runs.items():
            if key[0] == system:
                score.add_run(run.record)
        mine = [item for item in items if item.system == system]
        for item in mine:
            for rater, value in item.ratings.items():
                (score.judge if rater == JUDGE else score.human).add(value)
        pairs = [
            (item.ratings[JUDGE], value)
            for item in mine
            if JUDGE in item.ratings
            for rater, value in item.ratings.items()
            if rater != JUDGE
        ]
        a = [x for x, _ in pairs]
        b = [y for _, y in pairs]
        versus[system] = SystemJudgeVsHuman(
            len(pairs), stats.percent_agreement(a, b), stats.conflict_rate(a, b)
        )
        rows.append(score)
    return rows, versus


def _value(
    estimate: float | None,
    statistic: Callable[[np.ndarray], float | None],
    n_items: int,
    options: Options,
    salt: str,
) -> Statistic:
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
            interval = (found.low, found.high)
    return Statistic(estimate, interval)


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


def _table_stats(tables: np.ndarray, options: Options, salt: str, *, conflicts: bool) -> TableStats:
    """Agreement, conflicts, Cohen's kappa and confusion of per-item confusion tables."""
    n = tables.shape[0]
    total = tables.sum(axis=0)

    def value(function: Callable[[np.ndarray], float | None]) -> Statistic:
        def on_items(indices: np.ndarray) -> float | None:
            return function(tables[indices].sum(axis=0))

        return _value(function(total), on_items, n, options, salt)

    def kappa_linear(table: np.ndarray) -> float | None:
        return stats.kappa_of_table(table, "linear")

    return TableStats(
        n=int(total.sum()),
        percent_agreement=value(stats.agreement_of_table),
        cohen_kappa=value(stats.kappa_of_table),
        cohen_kappa_linear=value(kappa_linear),
        confusion=total.tolist(),
        direct_conflict_rate=value(stats.conflicts_of_table) if conflicts else None,
    )


def _judge_vs_human(
    view: list[dict[str, int]],
    annotators: list[str],
    categories: Sequence[int],
    options: Options,
    name: str,
) -> JudgeVsHuman:
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
    per_annotator = []
    for annotator in annotators:
        pairs = [[(r[JUDGE], r[annotator])] for r in view if JUDGE in r and annotator in r]
        table = _table_stats(
            _item_tables(pairs, categories), options, f"{name}jh{annotator}", conflicts=three_way
        )
        per_annotator.append(AnnotatorAgreement(annotator, table))
    return JudgeVsHuman(pooled, len(per_item), per_annotator)


def _between(
    view: list[dict[str, int]],
    annotators: list[str],
    categories: Sequence[int],
    options: Options,
    name: str,
) -> BetweenAnnotators:
    """Pairwise Cohen's kappa, Krippendorff's alpha and Fleiss' kappa between raters."""
    three_way = name == "three_way"
    level: Literal["nominal", "ordinal"] = "ordinal" if three_way else "nominal"
    pairwise = []
    for first, second in itertools.combinations(annotators, 2):
        pairs = [[(r[first], r[second])] for r in view if first in r and second in r]
        table = _table_stats(
            _item_tables(pairs, categories), options, f"{name}{first}|{second}", conflicts=three_way
        )
        pairwise.append(PairAgreement((first, second), table))
    groups = {"humans": annotators}
    if any(JUDGE in r for r in view):
        groups["humans_and_judge"] = [*annotators, JUDGE]
    found = {}
    for group, raters in groups.items():
        rated = [[r[x] for x in raters if x in r] for r in view]
        counts = stats.category_counts([row for row in rated if row], categories)

        def alpha(indices: np.ndarray, counts: np.ndarray = counts) -> float | None:
            return stats.alpha_of_counts(counts[indices], categories, level)

        krippendorff = Alpha(
            level=level,
            raters=len(raters),
            items=int((counts.sum(axis=1) >= 2).sum()),
            statistic=_value(
                stats.alpha_of_counts(counts, categories, level),
                alpha,
                counts.shape[0],
                options,
                f"{name}{group}alpha",
            ),
        )
        complete = stats.category_counts(
            [row for row in rated if len(row) == len(raters)], categories
        )
        if len(raters) < 2:
            statistic, note = Statistic(None), "needs at least two raters"
        else:

            def fleiss_stat(indices: np.ndarray, complete: np.ndarray = complete) -> float | None:
                return stats.fleiss_of_counts(complete[indices])

            statistic = _value(
                stats.fleiss_of_counts(complete),
                fleiss_stat,
                complete.shape[0],
                options,
                f"{name}{group}fleiss",
            )
            note = "over the items every one of these raters labelled"
        fleiss = Fleiss(
            raters=len(raters),
            items=int(complete.shape[0]),
            items_left_out=counts.shape[0] - complete.shape[0],
            statistic=statistic,
            note=note,
        )
        found[group] = GroupAgreement(krippendorff, fleiss)
    return BetweenAnnotators(pairwise, found)


def _disagreements(items: list[Item]) -> list[Disagreement]:
    """Items whose counted raters do not all agree, for adjudication."""
    found = []
    for item in items:
        values = set(item.ratings.values())
        if len(values) < 2:
            continue
        humans = {r: v for r, v in item.ratings.items() if r != JUDGE}
        found.append(
            Disagreement(
                system=item.system,
                task=item.task,
                implementation=item.implementation,
                ratings={r: ThreeWayLabel(v).short for r, v in sorted(item.ratings.items())},
                comments=dict(sorted(item.comments.items())),
                direct_conflict={ThreeWayLabel.LI, ThreeWayLabel.CC} <= values,
                between_humans=len(set(humans.values())) > 1,
                verdict=item.verdict,
            )
        )
    return found
