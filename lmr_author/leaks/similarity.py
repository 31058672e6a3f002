"""How much of the golden goal function another piece of code holds.

Two numbers over the normalized token sequences of `lmr_author.leaks.code_tokens`
(bodies only: comments, layout, docstrings and string contents dropped, local names made
one token):

- ``similarity``: `difflib.SequenceMatcher`'s ratio, 2 x matched tokens / both lengths.
  1.0 is the same code up to names, comments and layout; it falls as either side has
  code the other lacks.
- ``containment``: the share of the golden body's tokens found in the other, in order, in
  runs of at least `MIN_RUN` tokens (shorter runs are what any two functions share by
  chance). It stays high when the other is a larger function that holds the golden one
  (a library's general version, a plotting function that inlines the computation).

The thresholds, and the published benchmark's figures they were chosen from, are in
docs/answer-leaks.md; `severity` applies them.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from typing import Literal

#: At or above: the same code up to names, comments, layout and one token in thirty.
ERROR_SIMILARITY = 0.97
#: At or above: close enough that a solver could adapt it.
WARNING_SIMILARITY = 0.85
#: At or above (in runs of `MIN_RUN`), the other holds most of the golden code.
WARNING_CONTAINMENT = 0.8
#: At or above, for a function of the goal's own name: the goal's original or variant.
WARNING_NAMESAKE = 0.6
#: Matching runs shorter than this many tokens do not count towards containment.
MIN_RUN = 6
#: Shingles (runs of this many tokens) give a quick look before the costly matching.
SHINGLE = 4
#: A function sharing fewer of the golden body's shingles than this is not matched (a
#: copy with a quarter of its tokens changed, evenly spread, still shares 0.75^4 = 0.32;
#: the published benchmark's findings share 0.56 or more, docs/answer-leaks.md).
SHINGLE_FLOOR = 0.3
#: Golden bodies shorter than this many tokens are not compared: a two-line body is
#: "copied" by every function that does the same obvious thing.
MIN_GOAL_TOKENS = 20
#: A function more than this many times the golden body's length is not compared for
#: containment: a long enough function holds any short one in runs of common tokens.
MAX_CONTAINER_FACTOR = 4.0

Level = Literal["error", "warning"]


@dataclass(frozen=True)
class Score:
    similarity: float
    containment: float
    namesake: bool = False

    @property
    def level(self) -> Level | None:
        """``error`` at near-identity, ``warning`` where a solver could adapt it, else None."""
        if self.similarity >= ERROR_SIMILARITY:
            return "error"
        if (
            self.similarity >= WARNING_SIMILARITY
            or self.containment >= WARNING_CONTAINMENT
            or (self.namesake and self.similarity >= WARNING_NAMESAKE)
        ):
            return "warning"
        return None

    @property
    def strength(self) -> float:
        """One number to rank copies by (the larger of the two)."""
        return max(self.similarity, self.containment)

    def describe(self) -> str:
        text = f"similarity {self.similarity:.2f}"
        if self.containment >= WARNING_CONTAINMENT and self.containment > self.similarity:
            text += f", holds {self.containment:.0%} of the golden body"
        return text


class Golden:
    """The golden goal function's normalized body, ready to be compared many times."""

    def __init__(self, sequence: tuple[str, ...], name: str = "") -> None:
        self.sequence = sequence
        self.name = name
        self.counts = Counter(sequence)
        self.shingles = _shingles(sequence)
        self._matcher = difflib.SequenceMatcher(None, autojunk=False)
        self._matcher.set_seq2(sequence)  # the matcher indexes the second sequence once

    @property
    def comparable(self) -> bool:
        return len(self.sequence) >= MIN_GOAL_TOKENS

    def compare(
        self, other: tuple[str, ...], name: str = "", *, floor: float | None = None
    ) -> Score | None:
        """The score of ``other`` (named ``name``), or None when it cannot reach ``floor``
        (default: a warning), decided from lengths and token counts before the costly
        matching. A lower ``floor`` finds the near misses too."""
        mine, theirs = len(self.sequence), len(other)
        if not mine or not theirs:
            return None
        namesake = bool(name) and name == self.name
        if floor is None:
            floor = WARNING_NAMESAKE if namesake else WARNING_SIMILARITY
        contain_floor = min(floor, WARNING_CONTAINMENT)
        may_contain = theirs <= MAX_CONTAINER_FACTOR * mine
        if 2 * min(mine, theirs) / (mine + theirs) < floor and not may_contain:
            return None
        shared = sum((self.counts & Counter(other)).values())
        if 2 * shared / (mine + theirs) < floor and (
            not may_contain or shared / mine < contain_floor
        ):
            return None  # even in the best order, too few tokens in common
        if self.shingles:
            share = len(self.shingles & _shingles(other)) / len(self.shingles)
            if share < SHINGLE_FLOOR * min(1.0, floor / WARNING_SIMILARITY):
                return None  # too few runs in common to match closely
        matcher = self._matcher
        matcher.set_seq1(other)
        blocks = matcher.get_matching_blocks()
        matched = sum(block.size for block in blocks)
        runs = sum(block.size for block in blocks if block.size >= MIN_RUN)
        similarity = 2 * matched / (mine + theirs)
        containment = runs / mine if may_contain else 0.0
        return Score(round(similarity, 3), round(containment, 3), namesake)


def _shingles(sequence: tuple[str, ...]) -> set[tuple[str, ...]]:
    return {sequence[i : i + SHINGLE] for i in range(len(sequence) - SHINGLE + 1)}
