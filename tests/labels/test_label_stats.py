"""The statistics wrappers against values worked out by hand in the comments."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pytest

from lmr_author.labels import stats


def _pairs_from_table(table: list[list[int]]) -> tuple[list[int], list[int]]:
    a: list[int] = []
    b: list[int] = []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            a += [i + 1] * count
            b += [j + 1] * count
    return a, b


def test_cohen_kappa_unweighted_and_linear_by_hand() -> None:
    # Table (rows rater A, columns rater B), n = 10:
    #   [[2, 1, 0],
    #    [0, 3, 1],
    #    [1, 0, 2]]
    # p_o = (2+3+2)/10 = 0.7; row totals 3,4,3 and column totals 3,4,3
    # p_e = (3*3 + 4*4 + 3*3)/100 = 0.34; kappa = (0.7-0.34)/(1-0.34) = 0.36/0.66 = 6/11.
    # Linear weights of disagreement |i-j|/2: 0, 0.5, 1.
    # D_o = (1*0.5 + 1*0.5 + 1*1)/10 = 0.2
    # D_e = (0.5*(3*4 + 4*3 + 4*3 + 3*4) + 1*(3*3 + 3*3))/100 = (24 + 18)/100 = 0.42
    # kappa_w = 1 - 0.2/0.42 = 11/21.
    a, b = _pairs_from_table([[2, 1, 0], [0, 3, 1], [1, 0, 2]])
    assert stats.cohen_kappa(a, b) == pytest.approx(6 / 11)
    assert stats.cohen_kappa(a, b, weights="linear") == pytest.approx(11 / 21)
    assert stats.confusion_matrix(a, b).tolist() == [[2, 1, 0], [0, 3, 1], [1, 0, 2]]


def test_cohen_kappa_is_none_when_undefined() -> None:
    # Both raters always say 3: p_e = 1, kappa = 0/0.
    assert stats.cohen_kappa([3, 3, 3], [3, 3, 3]) is None
    assert stats.cohen_kappa([], []) is None


def test_percent_agreement_and_direct_conflicts_by_hand() -> None:
    # pairs (1,3) (3,3) (2,2) (3,1): 2 equal of 4; 2 are 1-against-3.
    a, b = [1, 3, 2, 3], [3, 3, 2, 1]
    assert stats.percent_agreement(a, b) == 0.5
    assert stats.conflict_rate(a, b) == 0.5
    # (1,2) and (2,3) disagree but are not direct conflicts.
    assert stats.conflict_rate([1, 2], [2, 3]) == 0.0
    assert stats.percent_agreement([], []) is None


def test_fleiss_kappa_by_hand() -> None:
    # 4 items x 3 raters: (1,1,1) (2,2,3) (3,3,3) (1,2,3).
    # Category counts per item: [3,0,0] [0,2,1] [0,0,3] [1,1,1].
    # P_i = (sum n_ij^2 - 3) / (3*2): 1, 1/3, 1, 0 -> mean 7/12.
    # p_j = (4, 3, 5)/12 -> P_e = (16 + 9 + 25)/144 = 50/144.
    # kappa = (7/12 - 50/144) / (1 - 50/144) = 34/94.
    ratings = [[1, 1, 1], [2, 2, 3], [3, 3, 3], [1, 2, 3]]
    assert stats.fleiss_kappa(ratings) == pytest.approx(34 / 94)
    with pytest.raises(ValueError):
        stats.fleiss_kappa([[1, 2], [1, 2, 3]])
    assert stats.fleiss_kappa([[1], [2]]) is None


def _alpha(
    raters: list[list[float]], level: Literal["nominal", "ordinal"] = "ordinal"
) -> float | None:
    """Alpha of raters x items (NaN = not rated), through the counts table the report uses."""
    items = [[int(v) for v in column if not math.isnan(v)] for column in zip(*raters, strict=True)]
    return stats.alpha_of_counts(stats.category_counts([r for r in items if r]), level=level)


def test_krippendorff_alpha_nominal_by_hand() -> None:
    # Units (A,B): (1,1) (1,2) (2,2) (2,2). Coincidences: o11=2, o12=o21=1, o22=4;
    # n1=3, n2=5, n=8. D_o = 2/8; D_e = 2*3*5/(8*7) = 30/56.
    # alpha = 1 - (2/8)/(30/56) = 1 - 14/30 = 16/30.
    data = [[1, 1, 2, 2], [1, 2, 2, 2]]
    assert _alpha(data, level="nominal") == pytest.approx(16 / 30)


def test_krippendorff_alpha_ordinal_by_hand() -> None:
    # Units (A,B): (1,1) (1,2) (3,3) (2,3). Coincidences o11=2, o12=o21=1, o33=2,
    # o23=o32=1; n1=3, n2=2, n3=3, n=8.
    # Ordinal distance d(c,k) = (sum_{g=c..k} n_g - (n_c+n_k)/2)^2:
    #   d(1,2) = (5 - 2.5)^2 = 6.25, d(2,3) = (5 - 2.5)^2 = 6.25, d(1,3) = (8 - 3)^2 = 25.
    # D_o = (2*6.25 + 2*6.25)/8 = 3.125
    # D_e = 2*(3*2*6.25 + 2*3*6.25 + 3*3*25)/(8*7) = 600/56
    # alpha = 1 - 3.125*56/600 = 1 - 175/600 = 425/600.
    data = [[1, 1, 3, 2], [1, 2, 3, 3]]
    assert _alpha(data, level="ordinal") == pytest.approx(425 / 600)


def test_krippendorff_alpha_handles_missing_and_undefined() -> None:
    nan = math.nan
    # A third rater who rated nothing changes nothing.
    data = [[1, 1, 3, 2], [1, 2, 3, 3], [nan, nan, nan, nan]]
    assert _alpha(data) == pytest.approx(425 / 600)
    assert _alpha([[3, 3], [3, 3]]) is None  # one value only
    assert _alpha([[1, 2]]) is None  # one rater
    assert _alpha([[1, nan], [nan, 2]]) is None  # no pairable item


def test_collapse_to_completely_correct() -> None:
    assert [stats.collapse(x) for x in (1, 2, 3)] == [0, 0, 1]


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    a = np.array([1, 2, 3, 3, 2, 1, 3, 3, 1, 2] * 3)
    b = np.array([1, 2, 3, 2, 2, 1, 3, 1, 1, 3] * 3)

    def agreement(indices: np.ndarray) -> float:
        return float(np.mean(a[indices] == b[indices]))

    first = stats.bootstrap_ci(agreement, len(a), resamples=500, seed=7)
    again = stats.bootstrap_ci(agreement, len(a), resamples=500, seed=7)
    other = stats.bootstrap_ci(agreement, len(a), resamples=500, seed=8)
    assert first is not None and other is not None
    assert first == again
    assert first != other
    assert first.low < agreement(np.arange(len(a))) < first.high
    assert first.resamples == 500
    assert stats.bootstrap_ci(agreement, len(a), resamples=0, seed=1) is None


def test_bootstrap_skips_undefined_resamples() -> None:
    def never(indices: np.ndarray) -> float | None:
        return None

    assert stats.bootstrap_ci(never, 5, resamples=50, seed=1) is None
