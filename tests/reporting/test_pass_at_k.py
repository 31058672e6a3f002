"""pass@k against brute-force enumeration of every k-subset of the samples."""

from __future__ import annotations

import itertools
import math

import pytest

from lmr_author.reporting.pass_at_k import SampleCount, mean_pass_at_k, pass_at_k
from lmr_author.util.errors import UserError


def brute_force(samples: int, passed: int, k: int) -> float:
    outcomes = [True] * passed + [False] * (samples - passed)
    draws = list(itertools.combinations(range(samples), k))
    hits = sum(1 for draw in draws if any(outcomes[i] for i in draw))
    return hits / len(draws)


@pytest.mark.parametrize("samples", range(1, 9))
def test_matches_enumeration_for_small_n(samples: int) -> None:
    for passed in range(samples + 1):
        for k in range(1, samples + 1):
            assert pass_at_k(samples, passed, k) == pytest.approx(
                brute_force(samples, passed, k), abs=1e-12
            ), (samples, passed, k)


def test_pass_at_1_is_the_share_that_passes() -> None:
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3, abs=1e-12)


def test_stable_where_binomials_are_huge() -> None:
    # C(2000, 100) overflows a float; the product form does not.
    expected = 1 - math.comb(1990, 100) / math.comb(2000, 100)
    assert pass_at_k(2000, 10, 100) == pytest.approx(expected, rel=1e-9)


def test_mean_over_items() -> None:
    counts = [SampleCount("01-DPO#1", 5, 0), SampleCount("02-BLEU#1", 5, 5)]
    counts.append(SampleCount("03-TopP#1", 4, 1))
    assert mean_pass_at_k(counts, 2) == pytest.approx((0.0 + 1.0 + 0.5) / 3, abs=1e-12)


@pytest.mark.parametrize(
    ("counts", "k", "needle"),
    [
        ([SampleCount("01-DPO#1", 2, 1)], 3, "01-DPO#1 has 2"),
        ([SampleCount("01-DPO#1", 2, 3)], 1, "3 passing samples out of 2"),
        ([], 1, "no items"),
        ([SampleCount("01-DPO#1", 2, 1)], 0, "pass@0"),
    ],
)
def test_bad_counts_are_user_errors(counts: list[SampleCount], k: int, needle: str) -> None:
    with pytest.raises(UserError, match=needle):
        mean_pass_at_k(counts, k)


def test_programming_errors_raise_value_error() -> None:
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)
    with pytest.raises(ValueError):
        pass_at_k(0, 0, 1)
