"""The one rule for rows that rest on few items (`lmr_author.domain.thin_rows`)."""

from __future__ import annotations

import pytest

from lmr_author.domain.thin_rows import MARK, describe, footnote, mark, thin_rows


@pytest.mark.parametrize(
    ("counts", "thin"),
    [
        ({"a": 24, "b": 24, "c": 1}, {"c": 24.0}),  # the published judge row: n = 1
        ({"a": 24, "c": 1}, {"c": 12.5}),  # two rows: compared with their median
        ({"a": 10, "b": 10, "c": 4}, {"c": 10.0}),  # n < 5 when the others have 10
        ({"a": 10, "b": 10, "c": 5}, {}),  # exactly half the median: not thin
        ({"a": 24, "b": 0, "c": 0}, {}),  # no percentages behind n = 0, one row left
        ({"a": 24, "b": 20, "c": 0}, {}),  # n = 0 neither thin nor in the median
        ({"a": 1}, {}),  # a lone row is never thin
        ({"a": 1, "b": 1}, {}),  # all equally few: none stands out
        ({}, {}),
    ],
)
def test_rule(counts: dict[str, int], thin: dict[str, float]) -> None:
    assert thin_rows(counts) == thin


def test_cells_and_lines() -> None:
    assert mark(1, True) == f"1 {MARK}" and mark(24, False) == "24"
    assert footnote([]) == ""
    assert footnote(["x", "y"]).startswith(f"Rows marked {MARK} rest on few items")
    assert footnote(["x", "y"]).endswith(": x, y.")
    assert describe("gpt4o", 1, 24.0) == "gpt4o (n=1, median 24)"
    assert describe("gpt4o", 2, 12.5) == "gpt4o (n=2, median 12.5)"
