"""The agreement report as typed values, and its JSON shape (``lmr-author agreement --json``).

`lmr_author.labels.agreement` fills these in; the terminal and Markdown tables
(`lmr_author.labels.report`) read them; ``to_json`` gives the published JSON, whose keys
and order stay those of report version 1.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from lmr_author.domain.scoring import LABELS, LabelCounts, SystemScore, Tally
from lmr_author.domain.thin_rows import thin_rows
from lmr_author.labels.matching import (
    JUDGE,
    AnnotatorLabels,
    MissingItem,
    StaleLabel,
    UnparsedAnswer,
)

REPORT_VERSION = 1


@dataclass(frozen=True)
class Statistic:
    """An estimate and its bootstrap interval; None means undefined (e.g. kappa of one value)."""

    value: float | None
    ci: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "ci": None if self.ci is None else list(self.ci)}


@dataclass(frozen=True)
class TableStats:
    """Agreement of paired ratings: counts, kappas and the pooled confusion matrix."""

    n: int
    percent_agreement: Statistic
    cohen_kappa: Statistic
    cohen_kappa_linear: Statistic
    confusion: list[list[int]]
    #: 1 against 3 (three-way view only).
    direct_conflict_rate: Statistic | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n": self.n,
            "percent_agreement": self.percent_agreement.to_json(),
            "cohen_kappa": self.cohen_kappa.to_json(),
            "cohen_kappa_linear": self.cohen_kappa_linear.to_json(),
            "confusion": self.confusion,
        }
        if self.direct_conflict_rate is not None:
            out["direct_conflict_rate"] = self.direct_conflict_rate.to_json()
        return out


@dataclass(frozen=True)
class AnnotatorAgreement:
    """The judge against one annotator."""

    annotator: str
    stats: TableStats


@dataclass(frozen=True)
class JudgeVsHuman:
    """The judge against every (item, annotator) pair, pooled and per annotator."""

    pooled: TableStats
    items: int
    per_annotator: list[AnnotatorAgreement]

    @property
    def pairs(self) -> int:
        return self.pooled.n

    def to_json(self) -> dict[str, Any]:
        pooled = self.pooled.to_json()
        del pooled["n"]
        return {
            "pairs": self.pairs,
            "items": self.items,
            **pooled,
            "confusion_axes": {"rows": JUDGE, "columns": "human"},
            "per_annotator": [
                {"annotator": row.annotator, **row.stats.to_json()} for row in self.per_annotator
            ],
        }


@dataclass(frozen=True)
class PairAgreement:
    """Two annotators against each other."""

    annotators: tuple[str, str]
    stats: TableStats


@dataclass(frozen=True)
class Alpha:
    """Krippendorff's alpha of a group of raters."""

    level: str
    raters: int
    items: int
    statistic: Statistic

    def to_json(self) -> dict[str, Any]:
        head = {"level": self.level, "raters": self.raters, "items": self.items}
        return {**head, **self.statistic.to_json()}


@dataclass(frozen=True)
class Fleiss:
    """Fleiss' kappa of a group of raters, over the items all of them labelled."""

    raters: int
    items: int
    items_left_out: int
    statistic: Statistic
    note: str

    def to_json(self) -> dict[str, Any]:
        head = {"raters": self.raters, "items": self.items, "items_left_out": self.items_left_out}
        return {**head, **self.statistic.to_json(), "note": self.note}


@dataclass(frozen=True)
class GroupAgreement:
    """Alpha and Fleiss' kappa of one group (``humans`` or ``humans_and_judge``)."""

    alpha: Alpha
    fleiss: Fleiss


@dataclass(frozen=True)
class BetweenAnnotators:
    """Pairwise agreement between annotators and the agreement of whole groups."""

    pairwise: list[PairAgreement]
    groups: dict[str, GroupAgreement]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pairwise": [
                {"annotators": list(pair.annotators), **pair.stats.to_json()}
                for pair in self.pairwise
            ]
        }
        for name, group in self.groups.items():
            out[f"krippendorff_alpha_{name}"] = group.alpha.to_json()
            out[f"fleiss_kappa_{name}"] = group.fleiss.to_json()
        return out


@dataclass(frozen=True)
class ViewAgreement:
    """Everything measured on one view of the labels (three-way, or CC vs not CC)."""

    categories: list[str]
    judge_vs_human: JudgeVsHuman | None
    between_annotators: BetweenAnnotators

    def to_json(self) -> dict[str, Any]:
        return {
            "categories": self.categories,
            "judge_vs_human": None
            if self.judge_vs_human is None
            else self.judge_vs_human.to_json(),
            "between_annotators": self.between_annotators.to_json(),
        }


@dataclass(frozen=True)
class SystemJudgeVsHuman:
    """How often the judge agrees with the humans on one system's items."""

    pairs: int
    percent_agreement: float | None
    direct_conflict_rate: float | None


def _labels_json(counts: LabelCounts) -> dict[str, Any]:
    return {
        "n": counts.total,
        "counts": {label: counts.count(label) for label in LABELS},
        "percent": {label: counts.percent(label) for label in LABELS},
        "not_cc_percent": counts.not_cc_percent,
    }


def _unit_tests_json(tally: Tally) -> dict[str, Any] | None:
    """Unit tests of the counted runs (infra-errors and not-runnable runs left out)."""
    if not tally.counted:
        return None
    return {"runs": tally.counted, "passed": tally.passed, "accuracy_percent": tally.percent}


@dataclass(frozen=True)
class Disagreement:
    """An item whose counted raters do not all agree, for adjudication."""

    system: str
    task: str
    implementation: int
    ratings: dict[str, str]
    comments: dict[str, str]
    direct_conflict: bool
    between_humans: bool
    verdict: str | None


@dataclass(frozen=True)
class Bootstrap:
    resamples: int
    seed: int
    level: float


@dataclass(frozen=True)
class ReportInputs:
    """What went in: annotators, judge, counts; ``described`` are the caller's own keys."""

    annotators: list[str]
    judge: dict[str, str] | None
    items: int
    human_labels_counted: int
    judge_labels_counted: int
    human_labels_without_hash: int
    bootstrap: Bootstrap
    described: dict[str, Any] = field(default_factory=dict)
    #: Per annotator: labels that went in and the dates they were given.
    annotator_labels: dict[str, AnnotatorLabels] = field(default_factory=dict)
    #: The --annotator / --system filters ([] = all) and what they left out.
    filters: dict[str, list[str]] = field(default_factory=dict)
    filtered_out: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        fields = asdict(self)
        del fields["described"]
        return {**self.described, **fields}


@dataclass(frozen=True)
class AgreementReport:
    """The whole agreement analysis."""

    inputs: ReportInputs
    #: Per system: unit-test accuracy, judge and human CC / LC / LI (the paper's Table 2).
    distribution: list[SystemScore]
    #: Per system: the judge against the humans; None without a judge.
    judge_vs_human: dict[str, SystemJudgeVsHuman] | None
    three_way: ViewAgreement
    binary: ViewAgreement
    disagreements: list[Disagreement]
    missing: list[MissingItem]
    stale: list[StaleLabel]
    unparsed: list[UnparsedAnswer]
    notes: list[str]

    @property
    def has_judge(self) -> bool:
        return self.judge_vs_human is not None

    def thin(self) -> dict[str, dict[str, float]]:
        """Per side (``judge``, ``human``): systems whose n is thin, with the median n."""
        return {
            side: thin_rows(
                {row.system: row.count(side) for row in self.distribution}
                if side == "human" or self.has_judge
                else {}
            )
            for side in ("judge", "human")
        }

    def _distribution_json(self) -> list[dict[str, Any]]:
        thin = self.thin()
        rows = []
        for row in self.distribution:
            judge = None
            if self.judge_vs_human is not None:
                judge = {**_labels_json(row.judge), "thin": row.system in thin["judge"]}
            versus = (self.judge_vs_human or {}).get(row.system)
            rows.append(
                {
                    "system": row.system,
                    "unit_test": _unit_tests_json(row.unit_tests),
                    "judge": judge,
                    "human": {**_labels_json(row.human), "thin": row.system in thin["human"]},
                    "judge_vs_human": None if versus is None else asdict(versus),
                }
            )
        return rows

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": REPORT_VERSION,
            "inputs": self.inputs.to_json(),
            "distribution": self._distribution_json(),
            "three_way": self.three_way.to_json(),
            "binary": self.binary.to_json(),
            "disagreements": [asdict(row) for row in self.disagreements],
            "missing": [asdict(row) for row in self.missing],
            "stale": [asdict(row) for row in self.stale],
            "unparsed": [asdict(row) for row in self.unparsed],
            "notes": list(self.notes),
        }
