"""What ``validate --run`` proved of each implementation, in counts a reader can check:
the golden code passes N of N tests, the masked code fails M of them.

Kept beside the findings (`TaskReport.proofs`): a task without findings says "ok", and
this says why that "ok" is earned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lmr_author.sandbox.run_result import ImplementationRun


@dataclass(frozen=True)
class ImplementationProof:
    """The golden and masked runs of one implementation, counted."""

    implementation: int
    #: Tests the harness recorded on the golden code, and how many of them passed.
    golden_tests: int
    golden_passed: int
    golden_verdict: str
    #: The masked run: its verdict, why, tests recorded and how many did not pass.
    masked_verdict: str
    masked_reason: str
    masked_tests: int
    masked_failed: int

    @property
    def proven(self) -> bool:
        """The golden code passes every test and the masked code does not pass."""
        return self.golden_verdict == "pass" and self.masked_verdict != "pass"

    def describe(self) -> str:
        """``#1: golden passes 5 of 5 tests; masked fails 3 of 5``."""
        golden = f"golden passes {self.golden_passed} of {self.golden_tests} tests"
        if self.golden_verdict != "pass":
            golden += f" ({self.golden_verdict})"
        if self.masked_verdict == "pass":
            masked = f"masked passes too ({self.masked_tests} tests)"
        elif self.masked_failed:
            masked = f"masked fails {self.masked_failed} of {self.golden_tests}"
            if self.masked_tests != self.golden_tests:
                masked += f" ({self.masked_tests} ran)"
        else:  # no test failed, yet the run did (replayed outputs, a log, the exit status)
            masked = f"masked {self.masked_verdict}s ({_first_clause(self.masked_reason)})"
        return f"#{self.implementation}: {golden}; {masked}"

    def to_json(self) -> dict[str, Any]:
        return {
            "implementation": self.implementation,
            "golden": {
                "verdict": self.golden_verdict,
                "tests": self.golden_tests,
                "passed": self.golden_passed,
            },
            "masked": {
                "verdict": self.masked_verdict,
                "reason": self.masked_reason,
                "tests": self.masked_tests,
                "failed": self.masked_failed,
            },
        }


def proof_of(
    implementation: int, golden: ImplementationRun, masked: ImplementationRun
) -> ImplementationProof:
    tests = sum(item.tests for item in golden.verdicts)
    failed = sum(item.tests_failed for item in golden.verdicts)
    return ImplementationProof(
        implementation=implementation,
        golden_tests=tests,
        golden_passed=tests - failed,
        golden_verdict=str(golden.verdict),
        masked_verdict=str(masked.verdict),
        masked_reason=masked.reason,
        masked_tests=sum(item.tests for item in masked.verdicts),
        masked_failed=sum(item.tests_failed for item in masked.verdicts),
    )


def _first_clause(reason: str, limit: int = 90) -> str:
    """The reason's first clause (a replay lists every case that differs), kept short."""
    first, _, rest = reason.partition("; ")
    if len(first) > limit:
        return first[: limit - 1] + "…"
    return first + ("; …" if rest else "")
