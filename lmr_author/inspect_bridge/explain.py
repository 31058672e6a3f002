"""What a verdict score says about its run: each failing test's reason and output, capped.

A score's explanation is what a person reads in ``inspect view`` for each sample, so for
a run that did not pass it names every test file that did not pass, with its verdict and
reason (which holds the values the test reported: a failed assertion's message, the
replay comparison's words) and the tail of what the test printed. Each is cut to a size
that keeps a log of thousands of samples readable; the run record and the whole test
logs (up to `lmr_author.inspect_bridge.runs.MAX_LOG_CHARS`) stay in the metadata, for
``report``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lmr_author.domain.verdicts import PASS
from lmr_author.eval_output import RunRecord

#: A reason is cut to its first this many characters (the values come first).
MAX_REASON_CHARS = 600
#: A test's output is cut to its last this many characters (the end says what failed).
MAX_LOG_TAIL_CHARS = 2000


def head(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    text = text.strip()
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()} … ({len(text) - limit} more characters)"


def tail(text: str, limit: int = MAX_LOG_TAIL_CHARS) -> str:
    """The end of ``text``, at most ``limit`` characters, from a line's start when it can."""
    text = text.rstrip()
    if len(text) <= limit:
        return text
    kept = text[-limit:]
    newline = kept.find("\n")
    if 0 <= newline < limit // 2:
        kept = kept[newline + 1 :]
    return f"… ({len(text) - len(kept)} earlier characters)\n{kept}"


@dataclass(frozen=True)
class TestFailure:
    """One test file that did not pass: its verdict, its reason and its output's tail."""

    __test__ = False  # not a pytest test class

    test_file: str
    verdict: str
    reason: str
    log_tail: str

    def to_json(self) -> dict[str, Any]:
        return {
            "test_file": self.test_file,
            "verdict": self.verdict,
            "reason": self.reason,
            "log_tail": self.log_tail,
        }


def failures(record: RunRecord, logs: Mapping[str, str]) -> list[TestFailure]:
    """The test files of ``record`` that did not pass, capped (``logs``: test file -> log)."""
    return [
        TestFailure(
            test.test_file, test.verdict, head(test.reason), tail(logs.get(test.test_file, ""))
        )
        for test in record.tests
        if test.verdict != PASS
    ]


def _fenced(text: str) -> str:
    """``text`` as a Markdown code block whose fence no line of it can close."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}\n{text}\n{fence}"


def explanation(record: RunRecord, logs: Mapping[str, str], notes: Sequence[str] = ()) -> str:
    """The explanation of a verdict score: the run's reason (and ``notes``, e.g. what an
    agent changed outside the goal function), then each failing test's output, and its
    reason when it is not the run's."""
    first = head(record.reason) or ("all tests passed" if record.verdict == PASS else "")
    parts = [first + "".join(notes)]
    for test, failure in zip(
        [t for t in record.tests if t.verdict != PASS], failures(record, logs), strict=True
    ):
        if record.reason != f"{test.test_file}: {test.reason}":
            parts.append(f"{failure.test_file} ({failure.verdict}): {failure.reason}")
        if failure.log_tail:
            parts.append(f"What {failure.test_file} printed:\n{_fenced(failure.log_tail)}")
        else:
            parts.append(f"{failure.test_file} printed nothing.")
    return "\n\n".join(parts)
