"""Per-system scores: CC / LC / LI percentages beside unit-test accuracy (paper Table 2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lmr_author.eval_output import ItemKey, StoredRun
from lmr_author.judge.client import Usage
from lmr_author.judge.store import Judgment
from lmr_author.thin_rows import thin_rows
from lmr_author.three_way import UNPARSED, ThreeWayLabel
from lmr_author.verdicts import PASS, counts_for_accuracy

LABEL_ORDER = (*(label.short for label in sorted(ThreeWayLabel, reverse=True)), UNPARSED)


def _percent(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


@dataclass
class SystemScores:
    """One system's runs: unit-test passes and judge labels (of the runs judged)."""

    system: str
    runs: int = 0
    #: Runs that count toward unit-test accuracy (all but infrastructure failures).
    counted: int = 0
    passed: int = 0
    judged: int = 0
    #: Runs without a judgment of their current candidate: the server never answered,
    #: the batch stopped early, or judging has not run yet.
    unanswered: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LABEL_ORDER, 0))

    @property
    def unit_test_accuracy(self) -> float:
        """Percent of counted runs whose unit tests all passed (as ``eval`` reports it)."""
        return _percent(self.passed, self.counted)

    def percent(self, label: str) -> float:
        """Percent of judged runs with ``label`` (CC, LC, LI or unparsed)."""
        return _percent(self.counts.get(label, 0), self.judged)

    def to_json(self, *, thin: bool = False) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "counted": self.counted,
            "passed": self.passed,
            "unit_test_accuracy": self.unit_test_accuracy,
            "judged": self.judged,
            "unanswered": self.unanswered,
            "counts": dict(self.counts),
            "percent": {label: self.percent(label) for label in LABEL_ORDER},
            "thin": thin,
        }


@dataclass
class JudgeSummary:
    """What a judging run did, and the scores of every system it covers."""

    systems: dict[str, SystemScores] = field(default_factory=dict)
    asked: int = 0  # judgments made by asking the server in this run
    cached: int = 0  # judgments answered from the on-disk cache
    kept: int = 0  # up-to-date judgments already on disk, left alone
    unparsed: int = 0  # judgments of this run whose answer could not be read
    errors: int = 0  # judgments of this run where the server never answered
    #: Why unanswered judgments got no answer (cause -> how many) and where they were asked.
    failures: dict[str, int] = field(default_factory=dict)
    failure_url: str = ""
    not_asked: int = 0  # runs skipped because the batch stopped early
    stopped: str | None = None  # why the batch stopped early (server down), if it did
    requests: int = 0  # HTTP requests made (retries included)
    retries: int = 0
    usage: Usage = field(default_factory=Usage)  # tokens spent in this run
    usage_total: Usage = field(default_factory=Usage)  # tokens behind all judgments
    problems: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    model: str = ""
    endpoint: str = ""

    def thin(self) -> dict[str, float]:
        """Systems whose judge row rests on few judged runs, with the median (`thin_rows`)."""
        return thin_rows({name: scores.judged for name, scores in self.systems.items()})

    def to_json(self) -> dict[str, Any]:
        thin = self.thin()
        return {
            "model": self.model,
            "endpoint": self.endpoint,
            "asked": self.asked,
            "cached": self.cached,
            "kept": self.kept,
            "unparsed": self.unparsed,
            "errors": self.errors,
            "failures": dict(self.failures),
            "failure_url": self.failure_url,
            "not_asked": self.not_asked,
            "stopped": self.stopped,
            "requests": self.requests,
            "retries": self.retries,
            "usage": self.usage.to_json(),
            "usage_total": self.usage_total.to_json(),
            "duration_s": round(self.duration_s, 3),
            "problems": list(self.problems),
            "systems": {
                name: s.to_json(thin=name in thin) for name, s in sorted(self.systems.items())
            },
        }


def summarize_systems(runs: list[StoredRun], judgments: list[Judgment]) -> dict[str, SystemScores]:
    """Scores per system; a judgment counts only if it judged the run's current candidate."""
    current = {ItemKey(j.system, j.task, j.implementation): j for j in judgments if j.error is None}
    systems: dict[str, SystemScores] = {}
    for run in runs:
        summary = systems.setdefault(run.system, SystemScores(run.system))
        summary.runs += 1
        if counts_for_accuracy(run.verdict):
            summary.counted += 1
            summary.passed += run.verdict == PASS
        judgment = current.get(run.key)
        if judgment is not None and judgment.candidate_sha256 == run.candidate_sha256:
            summary.judged += 1
            summary.counts[judgment.label] = summary.counts.get(judgment.label, 0) + 1
        else:
            summary.unanswered += 1
    return systems
