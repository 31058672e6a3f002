"""Which rows of a per-system table rest on too few items to be read like the others.

A system whose judge row shows 100 / 0 / 0 with n = 1 looks as solid as one with n = 24
unless something says otherwise. The rule lives here, once, for every per-system table
(``agreement``, ``judge``, ``report`` Table 2): a row is *thin* when its n is below half
the median n of the rows that have any (rows with n = 0 show no percentages, so there is
nothing to doubt and they are left out of the median). A lone row is never thin: the
rule compares rows with each other, it does not judge a sample size on its own.
"""

from __future__ import annotations

import statistics
from collections.abc import Hashable, Mapping
from typing import TypeVar

__all__ = ["MARK", "RULE", "describe", "footnote", "mark", "thin_rows"]

K = TypeVar("K", bound=Hashable)

#: What a thin row's n is marked with in the tables.
MARK = "⚠"
#: The rule in words, for footnotes and help texts.
RULE = "n below half the median n of the rows"


def thin_rows(counts: Mapping[K, int]) -> dict[K, float]:
    """The thin rows of ``counts`` (row -> n), each with the median it was compared to."""
    present = [n for n in counts.values() if n > 0]
    if len(present) < 2:
        return {}
    median = float(statistics.median(present))
    return {row: median for row, n in counts.items() if 0 < n < median / 2}


def mark(n: int | str, thin: bool) -> str:
    """A table cell for n: ``"1 ⚠"`` when the row is thin, ``"24"`` otherwise."""
    return f"{n} {MARK}" if thin else str(n)


def footnote(names: list[str]) -> str:
    """The line under a table with thin rows (empty when there are none)."""
    if not names:
        return ""
    return f"Rows marked {MARK} rest on few items ({RULE}): {', '.join(names)}."


def describe(name: str, n: int, median: float) -> str:
    """One thin row for a summary line: ``"gpt4o (n=1, median 24)"``."""
    return f"{name} (n={n}, median {median:g})"
