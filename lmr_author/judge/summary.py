"""Per-system scores: CC / LC / LI percentages beside unit-test accuracy (paper Table 2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lmr_author.domain.scoring import LABELS, SystemScore
from lmr_author.domain.thin_rows import thin_rows
from lmr_author.domain.three_way import UNPARSED
from lmr_author.eval_output import ItemKey, StoredRun
from lmr_author.judge.client import Usage
from lmr_author.judge.store import Judgment

LABEL_ORDER = (*LABELS, UNPARSED)


def _percent(value: float | None) -> float:
    return 0.0 if value is None else round(value, 1)


def unit_test_accuracy(score: SystemScore) -> float:
    """Percent of counted runs whose unit tests all passed (0.0 when none counts)."""
    return _percent(score.unit_tests.percent)


def label_percent(score: SystemScore, label: str) -> float:
    """Percent of judged runs with ``label`` (CC, LC, LI or unparsed; 0.0 when none)."""
    return _percent(score.judge.percent(label))


def system_json(score: SystemScore, *, thin: bool = False) -> dict[str, Any]:
    """One system of the judge's summary: unit-test passes and judge labels (paper Table 2).

    Unit-test accuracy is over the counted runs, as ``eval`` reports it; CC / LC / LI
    (and unparsed) are percent of the judged runs.
    """
    return {
        "runs": score.runs,
        "counted": score.unit_tests.counted,
        "passed": score.unit_tests.passed,
        "unit_test_accuracy": unit_test_accuracy(score),
        "judged": score.judge.total,
        "unanswered": score.unanswered,
        "counts": {label: score.judge.count(label) for label in LABEL_ORDER},
        "percent": {label: label_percent(score, label) for label in LABEL_ORDER},
        "thin": thin,
    }


@dataclass
class JudgeSummary:
    """What a judging run did, and the scores of every system it covers."""

    systems: dict[str, SystemScore] = field(default_factory=dict)
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
        return thin_rows({name: scores.judge.total for name, scores in self.systems.items()})

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
                name: system_json(s, thin=name in thin) for name, s in sorted(self.systems.items())
            },
        }


def summarize_systems(runs: list[StoredRun], judgments: list[Judgment]) -> dict[str, SystemScore]:
    """Scores per system; a judgment counts only if it judged the run's current candidate."""
    current = {ItemKey(j.system, j.task, j.implementation): j for j in judgments if j.error is None}
    systems: dict[str, SystemScore] = {}
    for run in runs:
        score = systems.setdefault(run.system, SystemScore(run.system))
        score.add_run(run.record)
        judgment = current.get(run.key)
        if judgment is not None and judgment.candidate_sha256 == run.candidate_sha256:
            score.judge.add(judgment.label)
        else:
            score.unanswered += 1
    return systems
