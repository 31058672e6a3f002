"""Agreement statistics, computed by maintained libraries and wrapped to be total.

statsmodels (``statsmodels.stats.inter_rater``) gives Cohen's kappa (unweighted and
linear-weighted) and Fleiss' kappa, ``krippendorff`` gives Krippendorff's alpha; this
module only builds their inputs and turns the undefined cases (every rating the same,
fewer than two raters, no items) into ``None`` instead of NaN, warnings or exceptions.
Confidence intervals are a seeded percentile bootstrap over items (numpy), so the same
seed always gives the same interval and correlated ratings of one item move together.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

#: Category values of the three-way labels and of the CC / not-CC collapse.
THREE_WAY = (1, 2, 3)
BINARY = (0, 1)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def collapse(label: int) -> int:
    """Three-way label -> 1 for completely correct (3), 0 for not completely correct."""
    return 1 if label == 3 else 0


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def percent_agreement(a: Sequence[int], b: Sequence[int]) -> float | None:
    """Fraction of paired ratings that are equal (None with no pairs)."""
    return agreement_of_table(confusion_matrix(a, b, sorted({*a, *b}) or [0]))


def conflict_rate(a: Sequence[int], b: Sequence[int]) -> float | None:
    """Fraction of paired three-way ratings that are direct conflicts (1 against 3)."""
    return conflicts_of_table(confusion_matrix(a, b, THREE_WAY))


def confusion_matrix(
    a: Sequence[int], b: Sequence[int], categories: Sequence[int] = THREE_WAY
) -> IntArray:
    """Counts with rows = the first rater's category, columns = the second's."""
    k = len(categories)
    if len(a) != len(b):
        raise ValueError("the two raters must rate the same items")
    position = {value: i for i, value in enumerate(categories)}
    rows = np.fromiter((position[x] for x in a), dtype=np.int64, count=len(a))
    cols = np.fromiter((position[y] for y in b), dtype=np.int64, count=len(b))
    return np.bincount(rows * k + cols, minlength=k * k).reshape(k, k).astype(np.int64)


def agreement_of_table(table: IntArray) -> float | None:
    """Percent agreement (as a fraction) of a confusion matrix."""
    total = int(table.sum())
    return float(np.trace(table)) / total if total else None


def conflicts_of_table(table: IntArray) -> float | None:
    """Share of a three-way confusion matrix in the 1-vs-3 corners (direct conflicts)."""
    total = int(table.sum())
    return float(table[0, 2] + table[2, 0]) / total if total else None


def cohen_kappa(
    a: Sequence[int],
    b: Sequence[int],
    categories: Sequence[int] = THREE_WAY,
    weights: Literal["linear"] | None = None,
) -> float | None:
    """Cohen's kappa of two raters (statsmodels); ``weights="linear"`` for ordinal labels."""
    return kappa_of_table(confusion_matrix(a, b, categories), weights)


def kappa_of_table(table: IntArray, weights: Literal["linear"] | None = None) -> float | None:
    """Cohen's kappa of a square confusion matrix (``statsmodels.stats.inter_rater``).

    The table must list every category (rows and columns in category order), so linear
    weights count distances between categories, not between the ones that occur.
    """
    if int(table.sum()) == 0:
        return None
    from statsmodels.stats.inter_rater import cohens_kappa

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        result = cohens_kappa(table, wt=weights, return_results=False)
    return _finite(float(result))


def category_counts(
    ratings: Sequence[Sequence[int]], categories: Sequence[int] = THREE_WAY
) -> IntArray:
    """Items x categories: how many raters put each item in each category.

    This is statsmodels' ``aggregate_raters`` table and krippendorff's ``value_counts``.
    """
    from statsmodels.stats.inter_rater import aggregate_raters

    k = len(categories)
    if len(ratings) == 0:
        return np.zeros((0, k), dtype=np.int64)
    position = {value: i for i, value in enumerate(categories)}
    width = max(len(row) for row in ratings)
    data = np.full((len(ratings), width), -1, dtype=np.int64)
    for i, row in enumerate(ratings):
        data[i, : len(row)] = [position[v] for v in row]
    if (data < 0).any():
        # aggregate_raters needs full rows; count ragged rows directly.
        table = np.zeros((len(ratings), k), dtype=np.int64)
        for i, positions in enumerate(data):
            table[i] = np.bincount(positions[positions >= 0], minlength=k)
        return table
    table, _ = aggregate_raters(data, n_cat=k)
    return np.asarray(table, dtype=np.int64)


def fleiss_kappa(
    ratings: Sequence[Sequence[int]], categories: Sequence[int] = THREE_WAY
) -> float | None:
    """Fleiss' kappa (statsmodels) of items x raters, every item rated by the same number."""
    if len(ratings) == 0 or len(ratings[0]) < 2:
        return None
    if len({len(row) for row in ratings}) != 1:
        raise ValueError("Fleiss' kappa needs the same number of raters for every item")
    return fleiss_of_counts(category_counts(ratings, categories))


def fleiss_of_counts(counts: IntArray) -> float | None:
    """Fleiss' kappa of an items x categories count table (equal row sums, >= 2)."""
    if counts.shape[0] == 0 or int(counts[0].sum()) < 2:
        return None
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        value = sm_fleiss(counts, method="fleiss")
    return _finite(float(value))


def alpha_of_counts(
    counts: IntArray,
    categories: Sequence[int] = THREE_WAY,
    level: Literal["nominal", "ordinal"] = "ordinal",
) -> float | None:
    """Krippendorff's alpha of an items x categories count table (``value_counts``)."""
    pairable = counts[counts.sum(axis=1) >= 2]
    if pairable.shape[0] == 0 or int((pairable.sum(axis=0) > 0).sum()) < 2:
        return None
    import krippendorff

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            value = krippendorff.alpha(
                value_counts=pairable,
                value_domain=list(categories),
                level_of_measurement=level,
            )
        except (ValueError, ZeroDivisionError):
            return None
    return _finite(float(value))


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval; ``resamples`` counts those where it was defined."""

    low: float
    high: float
    level: float
    resamples: int


def bootstrap_ci(
    statistic: Callable[[IntArray], float | None],
    n_items: int,
    *,
    resamples: int,
    seed: int,
    level: float = 0.95,
) -> Interval | None:
    """Percentile interval of ``statistic(item_indices)`` over item resamples (seeded numpy).

    ``statistic`` receives an array of item indices drawn with replacement; resamples
    where it returns None (undefined) are left out. None when fewer than 2 are defined.
    """
    if resamples <= 0 or n_items == 0:
        return None
    rng = np.random.default_rng(seed)
    values: list[float] = []
    for _ in range(resamples):
        drawn = rng.integers(0, n_items, size=n_items, dtype=np.int64)
        value = statistic(drawn)
        if value is not None and math.isfinite(value):
            values.append(value)
    if len(values) < 2:
        return None
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(np.array(values), [tail, 100.0 - tail])
    return Interval(low=float(low), high=float(high), level=level, resamples=len(values))
