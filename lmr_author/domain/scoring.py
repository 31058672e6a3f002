"""The scores of a set of runs: one row per system, the same numbers in every command.

Unit-test accuracy is the paper's: of the runs that count, the fraction whose tests all
passed. A run counts unless the machine, not the candidate, decided it
(`lmr_author.domain.verdicts.counts_for_accuracy`): infra-errors, among them the runs that were
"not runnable here" (no GPU, data or model), which the sandbox records as infra-errors.
CC / LC / LI are the shares of the paper's three-way labels (judge or human) a system got.

``eval`` (results.json and its summary), ``judge``, ``report`` and ``agreement`` all count
through `SystemScore`, so one set of runs has one accuracy wherever it is printed; each
of them only lays the row out in its own published shape.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from lmr_author.domain.three_way import UNPARSED, ThreeWayLabel
from lmr_author.domain.verdicts import PASS, VERDICTS, counts_for_accuracy

#: The three-way labels in the order tables show them.
LABELS = tuple(label.short for label in sorted(ThreeWayLabel, reverse=True))
#: The parts of a row with an n of their own: unit-test runs, judge labels, human labels.
PARTS = ("unit_tests", "judge", "human")
#: The category key of runs whose info.json names none.
UNCATEGORIZED = "uncategorized"


class ScoredRun(Protocol):
    """What scoring reads of a run (`lmr_author.eval_output.RunRecord` is one)."""

    @property
    def system(self) -> str: ...
    @property
    def task(self) -> str: ...
    @property
    def implementation(self) -> int: ...
    @property
    def verdict(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def category(self) -> str | None: ...
    #: Whether the candidate ran in a process of its own; None when unknown.
    @property
    def isolated(self) -> bool | None: ...


@dataclass
class Tally:
    """The unit-test outcome of some runs: how many count toward accuracy, how many passed."""

    counted: int = 0
    passed: int = 0

    def add(self, verdict: str) -> None:
        """Count one run's verdict (an infra-error is left out)."""
        if counts_for_accuracy(verdict):
            self.counted += 1
            self.passed += verdict == PASS

    @property
    def implementations(self) -> int:
        """``counted`` under results.json's name (every counted run is one implementation)."""
        return self.counted

    @property
    def accuracy(self) -> float | None:
        """Passed over counted; None when no run counts."""
        return self.passed / self.counted if self.counted else None

    @property
    def percent(self) -> float | None:
        """`accuracy` in percent (``100 * passed / counted``); None when no run counts."""
        return 100.0 * self.passed / self.counted if self.counted else None


@dataclass
class LabelCounts:
    """How many three-way labels of each kind (CC, LC, LI) a system got.

    ``unparsed`` are judge answers without a readable label: they are in the total (the
    denominator), as the paper's judge table counts them.
    """

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LABELS, 0))
    unparsed: int = 0

    def add(self, label: object) -> None:
        """Count one label: 1..3, ``"LC"``, a `ThreeWayLabel`; anything else is unparsed."""
        parsed = ThreeWayLabel.parse(label)
        if parsed is None:
            self.unparsed += 1
        else:
            self.counts[parsed.short] = self.counts.get(parsed.short, 0) + 1

    @property
    def total(self) -> int:
        return sum(self.counts.values()) + self.unparsed

    def count(self, label: str) -> int:
        """How many ``label`` (CC, LC, LI or unparsed)."""
        return self.unparsed if label == UNPARSED else self.counts.get(label, 0)

    def fraction(self, label: str) -> float | None:
        """The share of ``label`` (CC, LC, LI or unparsed); None when there is no label."""
        return self.count(label) / self.total if self.total else None

    def percent(self, label: str) -> float | None:
        """The share of ``label`` in percent (``100 * count / total``); None without labels."""
        return 100.0 * self.count(label) / self.total if self.total else None

    @property
    def not_cc_percent(self) -> float | None:
        """Percent of the labels that are not CC (the paper's Table 6)."""
        if not self.total:
            return None
        return 100.0 * (self.total - self.counts.get(ThreeWayLabel.CC.short, 0)) / self.total


@dataclass
class SystemScore:
    """One system's row: its runs' verdicts and unit-test accuracy, and CC / LC / LI."""

    system: str
    #: Every run, counted or not.
    runs: int = 0
    verdicts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    unit_tests: Tally = field(default_factory=Tally)
    categories: dict[str, Tally] = field(default_factory=dict)
    #: The counted runs by where the candidate ran: in a process of its own, or in the
    #: test's (a goal that cannot cross; a candidate there could forge its verdict).
    isolated: Tally = field(default_factory=Tally)
    in_process: Tally = field(default_factory=Tally)
    #: The runs left out of accuracy: task, implementation and why.
    infra_errors: list[dict[str, Any]] = field(default_factory=list)
    judge: LabelCounts = field(default_factory=LabelCounts)
    human: LabelCounts = field(default_factory=LabelCounts)
    #: Runs without a judgment of their current candidate (judging failed or has not run).
    unanswered: int = 0
    #: Where the row comes from when a table joins several sources (``report``): the
    #: setting (the paper's Table 3), the eval output or published file, and whether it
    #: is a published row (numbers read from published files, no runs of ours).
    setting: str = ""
    origin: str = ""
    published: bool = False

    def add_run(self, run: ScoredRun) -> None:
        """Count one run of this system."""
        self.runs += 1
        self.verdicts[run.verdict] = self.verdicts.get(run.verdict, 0) + 1
        if not counts_for_accuracy(run.verdict):
            self.infra_errors.append(
                {"task": run.task, "implementation": run.implementation, "reason": run.reason}
            )
            return
        self.unit_tests.add(run.verdict)
        category = self.categories.setdefault(run.category or UNCATEGORIZED, Tally())
        category.add(run.verdict)
        if run.isolated is not None:
            (self.isolated if run.isolated else self.in_process).add(run.verdict)

    def count(self, part: str) -> int:
        """The n behind a part of the row (`PARTS`): runs counted, or labels given."""
        if part == "unit_tests":
            return self.unit_tests.counted
        return self.judge.total if part == "judge" else self.human.total

    # results.json's names of the unit-test numbers
    @property
    def implementations(self) -> int:
        return self.unit_tests.counted

    @property
    def passed(self) -> int:
        return self.unit_tests.passed

    @property
    def accuracy(self) -> float | None:
        return self.unit_tests.accuracy


def score_runs(runs: Iterable[ScoredRun]) -> dict[str, SystemScore]:
    """The row of every system of ``runs``, by system."""
    systems: dict[str, SystemScore] = {}
    for run in runs:
        systems.setdefault(run.system, SystemScore(run.system)).add_run(run)
    return systems
