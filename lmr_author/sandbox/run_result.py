"""What a sandbox run gives back: the verdicts of its test files (its limits: `limits`).

Plain frozen dataclasses with no Docker in them, so that evaluation, validation and the
TUI can hold, compare and serialise results without an engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lmr_author.domain.verdicts import (
    INFRA_ERROR,
    PASS,
    TestVerdictName,
    Verdict,
    deciding_test,
    worst_of,
)


@dataclass(frozen=True)
class TestVerdict:
    """The verdict of one unit test file, with why and the container's output."""

    __test__ = False  # not a pytest test class

    test_file: str
    verdict: TestVerdictName
    reason: str
    duration_s: float
    log: str
    exit_code: int | None
    #: The legacy log (``unit_test/logs/unit_test_<k>.log``) when the test wrote one.
    legacy_log: str | None = None
    #: "exit-code" (in-process, harness-recorded), "legacy" or "replay": how it was decided.
    protocol: str = "exit-code"
    #: Tests the harness recorded ("<script>" included), and "Passed" lines of a legacy log.
    tests_run: int = 0
    #: Test functions recorded (the script's body when none), and how many did not pass:
    #: ``validate --run``'s proof (golden passes N of N, masked fails M).
    tests: int = 0
    tests_failed: int = 0
    legacy_passed: int | None = None
    #: Whether the candidate ran in a process of its own (`lmr_author.sandbox.isolation`),
    #: and what could not cross between the two processes when something could not.
    isolated: bool = False
    crossings: tuple[str, ...] = ()
    #: Isolated: repository files the test read and the candidate did not (relative to
    #: the repository): the tests' own data, which the golden proof makes private.
    test_reads: tuple[str, ...] = ()
    #: Isolated: the inputs the calls changed in place, as the proxy put them back
    #: (``self``, ``args[0]``...): a golden run's are what candidates may change.
    changed_inputs: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "test_file": self.test_file,
            "verdict": self.verdict,
            "reason": self.reason,
            "duration_s": round(self.duration_s, 3),
            "exit_code": self.exit_code,
            "protocol": self.protocol,
            "tests_run": self.tests_run,
            "tests": self.tests,
            "tests_failed": self.tests_failed,
            "isolated": self.isolated,
        }


@dataclass(frozen=True)
class ImplementationRun:
    """All test files of one implementation run against one candidate."""

    verdicts: list[TestVerdict]
    image_id: str
    infra_error: str | None = None
    #: Wall-clock seconds of the whole run, container creation to removal.
    wall_s: float = 0.0
    #: Whether the candidate ran in a process of its own; if not, why not.
    isolated: bool = False
    not_isolated_why: str = ""

    @property
    def verdict(self) -> Verdict:
        """``pass`` only if every test file passes; the worst of them (`worst_of`) else."""
        if self.infra_error is not None:
            return INFRA_ERROR
        return worst_of(v.verdict for v in self.verdicts)

    @property
    def crossings(self) -> list[str]:
        """What could not cross between the test's process and the candidate's."""
        return [item for verdict in self.verdicts for item in verdict.crossings]

    @property
    def test_reads(self) -> tuple[str, ...]:
        """Repository files only the tests read (every test file's, once)."""
        return tuple(sorted({path for verdict in self.verdicts for path in verdict.test_reads}))

    @property
    def passed(self) -> bool:
        return self.verdict == PASS

    @property
    def test_duration_s(self) -> float:
        """Seconds the tests themselves ran (inside their containers)."""
        return sum(v.duration_s for v in self.verdicts)

    @property
    def reason(self) -> str:
        """One line: the infra error, or the reason of the test that decided the verdict."""
        if self.infra_error is not None:
            return self.infra_error
        index = deciding_test([item.verdict for item in self.verdicts])
        if index is None:
            return "all tests passed" if self.verdicts else "no unit test ran"
        item = self.verdicts[index]
        return f"{item.test_file}: {item.reason}"
