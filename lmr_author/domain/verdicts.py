"""The verdict of a unit test file or of a run, and the one rule that combines them.

Every part that ranks or counts verdicts (the sandbox, ``validate --run``, ``eval``, the
judge table, the review) goes through this module, so a run has the same verdict and the
same accuracy wherever it is shown.

Ranking, worst first: ``infra-error`` > ``timeout`` > ``error`` > ``fail`` > ``pass``.

- ``infra-error`` wins because one test file that could not be run makes the run say
  nothing about the candidate: the run is left out of accuracy instead of being scored.
- ``timeout`` and ``error`` are both the candidate's failures. A timeout ranks first
  because the sandbox killed the test, so the other files' verdicts may be cut short
  too, and because it is the costlier symptom to hide (a candidate that hangs).
- ``fail`` (the tests ran and disagreed) is the least severe failure.

A verdict this module does not know counts as ``error``: a candidate is never scored
as passing on a word we cannot read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, Literal

#: The verdict of one unit test file.
TestVerdictName = Literal["pass", "fail", "error", "timeout"]
#: The verdict of a run (all test files of one implementation against one candidate).
Verdict = Literal["pass", "fail", "error", "timeout", "infra-error"]

PASS: Final = "pass"
FAIL: Final = "fail"
ERROR: Final = "error"
TIMEOUT: Final = "timeout"
INFRA_ERROR: Final = "infra-error"

#: Every verdict, in the order summaries list them.
VERDICTS: Final[tuple[Verdict, ...]] = (PASS, FAIL, ERROR, TIMEOUT, INFRA_ERROR)

#: Worse verdicts have higher ranks (see the module docstring for why).
_RANK: Final[dict[str, int]] = {PASS: 0, FAIL: 1, ERROR: 2, TIMEOUT: 3, INFRA_ERROR: 4}


def normalize(verdict: str) -> Verdict:
    """``verdict`` if it is one we know, else ``error``."""
    for known in VERDICTS:
        if verdict == known:
            return known
    return ERROR


def rank(verdict: str) -> int:
    """How bad ``verdict`` is: 0 for pass, higher is worse; unknown ones rank as error."""
    return _RANK[normalize(verdict)]


def worst_of(verdicts: Iterable[str]) -> Verdict:
    """The verdict of a run from its test files' verdicts; no test at all is an error."""
    found = [normalize(verdict) for verdict in verdicts]
    if not found:
        return ERROR
    return max(found, key=rank)


def deciding_test(verdicts: Sequence[str]) -> int | None:
    """Index of the first test file whose verdict is the run's (`worst_of`); its reason is
    the run's reason. None when every test passed or none ran."""
    verdict = worst_of(verdicts)
    if verdict == PASS or not verdicts:
        return None
    return next(i for i, found in enumerate(verdicts) if rank(found) == rank(verdict))


def counts_for_accuracy(verdict: str) -> bool:
    """Whether a run with this verdict counts toward accuracy (infra-errors do not)."""
    return verdict != INFRA_ERROR
