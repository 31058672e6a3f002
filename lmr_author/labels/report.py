"""Turn an agreement report (`lmr_author.labels.agreement_report`) into tables.

The report is first laid out as plain sections (title, header, rows) so that the
terminal tables (drawn by `lmr_author.commands._render_agreement`) and the Markdown
output show exactly the same numbers; ``--json`` prints the report's ``to_json()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lmr_author.labels.agreement_report import (
    AgreementReport,
    BetweenAnnotators,
    Disagreement,
    JudgeVsHuman,
    Statistic,
    TableStats,
)
from lmr_author.labels.matching import JUDGE, MissingItem, StaleLabel


@dataclass
class Section:
    """One table of the report."""

    title: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _with_ci(stat: Statistic | None, percent: bool) -> str:
    if stat is None or stat.value is None:
        return "–"
    scale = 100.0 if percent else 1.0
    fmt = _pct if percent else _num
    text = fmt(stat.value * scale)
    ci = stat.ci
    if ci:
        text += f" [{fmt(ci[0] * scale)}, {fmt(ci[1] * scale)}]"
    return text


def sections(report: AgreementReport, *, limit: int | None = None) -> list[Section]:
    """The report as tables; ``limit`` caps the rows of the long lists (None = all)."""
    out = [_distribution(report)]
    for data, title, three_way in (
        (report.three_way, "three-way", True),
        (report.binary, "CC vs not CC", False),
    ):
        if data.judge_vs_human is not None:
            out.append(_judge_vs_human(data.judge_vs_human, title, three_way))
            out.append(_confusion(data.judge_vs_human.pooled.confusion, data.categories, title))
        out.append(_between(data.between_annotators, title, three_way))
    out.append(_disagreements(report.disagreements, limit))
    out.append(_missing(report.missing, limit))
    out.append(_stale(report.stale, limit))
    if report.unparsed:
        out.append(
            Section(
                "Judge answers that could not be parsed (not counted)",
                ["system", "task", "impl", "file"],
                [
                    [x.system, x.task, str(x.implementation), x.file]
                    for x in _cap(report.unparsed, limit)
                ],
                _more(report.unparsed, limit),
            )
        )
    if report.notes:
        out.append(Section("Notes", ["note"], [[note] for note in report.notes]))
    return out


def _cap(rows: list[Any], limit: int | None) -> list[Any]:
    return rows if limit is None else rows[:limit]


def _more(rows: list[Any], limit: int | None) -> str:
    if limit is None or len(rows) <= limit:
        return ""
    return f"{len(rows) - limit} more not shown; use --json or --markdown for all."


def _distribution(report: AgreementReport) -> Section:
    rows = report.distribution
    has_judge = report.inputs.judge is not None
    has_runs = any(row.unit_test for row in rows)
    header = ["system"] + (["unit test"] if has_runs else [])
    if has_judge:
        header += ["judge CC", "judge LC", "judge LI", "judge n"]
    header += ["human CC", "human LC", "human LI", "human n"]
    if has_judge:
        header += ["judge=human %", "1 vs 3 %"]
    note = "Human percentages pool every annotator's label of the system's items."
    if has_judge:
        note += " The last two columns compare the judge with each human label."
    section = Section(
        "Per system: unit tests and CC / LC / LI distribution (percent)", header, note=note
    )
    for row in rows:
        unit = row.unit_test
        cells = [row.system]
        if has_runs:
            cells.append(_pct(unit.accuracy_percent) if unit else "–")
        for data in (row.judge, row.human) if has_judge else (row.human,):
            if data is None:
                continue
            cells += [_pct(data.percent[name]) for name in ("CC", "LC", "LI")]
            cells.append(str(data.n))
        versus = row.judge_vs_human
        if has_judge:
            for value in (
                versus.percent_agreement if versus else None,
                versus.direct_conflict_rate if versus else None,
            ):
                cells.append(_pct(value * 100.0) if value is not None else "–")
        section.rows.append(cells)
    return section


def _judge_vs_human(data: JudgeVsHuman, title: str, three_way: bool) -> Section:
    header = ["annotator", "pairs", "agreement %"]
    if three_way:
        header.append("direct conflicts % (1 vs 3)")
    header += ["Cohen κ", "Cohen κ linear"]
    section = Section(
        f"LLM judge vs humans, {title} (95% bootstrap intervals in brackets)",
        header,
        note=f"'all' pools every (item, annotator) pair; {data.items} items.",
    )
    rows: list[tuple[str, TableStats]] = [("all", data.pooled)]
    rows += [(x.annotator, x.stats) for x in data.per_annotator]
    for name, row in rows:
        cells = [name, str(row.n), _with_ci(row.percent_agreement, True)]
        if three_way:
            cells.append(_with_ci(row.direct_conflict_rate, True))
        cells += [_with_ci(row.cohen_kappa, False), _with_ci(row.cohen_kappa_linear, False)]
        section.rows.append(cells)
    return section


def _confusion(matrix: list[list[int]], names: list[str], title: str) -> Section:
    section = Section(
        f"Confusion, {title}: {JUDGE} (rows) vs humans (columns)", ["judge \\ human", *names]
    )
    for name, row in zip(names, matrix, strict=True):
        section.rows.append([name, *[str(v) for v in row]])
    return section


def _between(data: BetweenAnnotators, title: str, three_way: bool) -> Section:
    header = ["raters", "n", "agreement %"]
    if three_way:
        header.append("direct conflicts %")
    header += ["Cohen κ", "Cohen κ linear", "confusion (rows = first)"]
    section = Section(f"Between annotators, {title}", header)
    for pair in data.pairwise:
        stats = pair.stats
        cells = [" vs ".join(pair.annotators), str(stats.n)]
        cells.append(_with_ci(stats.percent_agreement, True))
        if three_way:
            cells.append(_with_ci(stats.direct_conflict_rate, True))
        cells += [
            _with_ci(stats.cohen_kappa, False),
            _with_ci(stats.cohen_kappa_linear, False),
            " / ".join(" ".join(str(v) for v in row) for row in stats.confusion),
        ]
        section.rows.append(cells)
    blank = [""] * (len(header) - 3)
    for group, label in (("humans", "humans"), ("humans_and_judge", "humans + judge")):
        found = data.groups.get(group)
        if found is None:
            continue
        alpha, fleiss = found.alpha, found.fleiss
        section.rows.append(
            [
                f"Krippendorff α ({alpha.level}), {label}",
                f"{alpha.items} items",
                _with_ci(alpha.statistic, False),
                *blank,
            ]
        )
        left = f", {fleiss.items_left_out} left out" if fleiss.items_left_out else ""
        section.rows.append(
            [
                f"Fleiss κ, {label}",
                f"{fleiss.items} items{left}",
                _with_ci(fleiss.statistic, False),
                *blank,
            ]
        )
    return section


def _item_cells(x: Disagreement | MissingItem | StaleLabel) -> list[str]:
    return [x.system, x.task, str(x.implementation)]


def _disagreements(rows: list[Disagreement], limit: int | None) -> Section:
    section = Section(
        f"Disagreements for adjudication ({len(rows)})",
        ["system", "task", "impl", "labels", "1 vs 3", "verdict", "comments"],
        note=_more(rows, limit),
    )
    for x in _cap(rows, limit):
        section.rows.append(
            [
                *_item_cells(x),
                ", ".join(f"{r}: {v}" for r, v in x.ratings.items()),
                "yes" if x.direct_conflict else "",
                x.verdict or "",
                "; ".join(f"{r}: {c}" for r, c in x.comments.items()),
            ]
        )
    return section


def _missing(rows: list[MissingItem], limit: int | None) -> Section:
    section = Section(
        f"Items missing from a source ({len(rows)})",
        ["system", "task", "impl", "present in", "missing from"],
        note=_more(rows, limit),
    )
    for x in _cap(rows, limit):
        section.rows.append([*_item_cells(x), ", ".join(x.present_in), ", ".join(x.missing_from)])
    return section


def _stale(rows: list[StaleLabel], limit: int | None) -> Section:
    section = Section(
        f"Labels of a candidate that changed since (not counted) ({len(rows)})",
        ["system", "task", "impl", "rater", "label", "labelled sha256", "run sha256"],
        note=_more(rows, limit),
    )
    for x in _cap(rows, limit):
        section.rows.append(
            [
                *_item_cells(x),
                x.rater,
                x.label,
                x.labelled_sha256[:12],
                x.run_sha256[:12],
            ]
        )
    return section


def to_markdown(report: AgreementReport) -> str:
    """The whole report as GitHub-flavoured Markdown (every row)."""
    lines = ["# Agreement between human annotators and the LLM judge", ""]
    inputs = report.inputs
    lines.append(
        f"Annotators: {', '.join(inputs.annotators) or 'none'}; items: {inputs.items}; "
        f"human labels counted: {inputs.human_labels_counted}; judge labels counted: "
        f"{inputs.judge_labels_counted}; bootstrap: {inputs.bootstrap.resamples} "
        f"resamples, seed {inputs.bootstrap.seed}."
    )
    lines.append("")
    for section in sections(report):
        lines += [f"## {section.title}", ""]
        if section.rows:
            lines.append("| " + " | ".join(section.header) + " |")
            lines.append("|" + "|".join("---" for _ in section.header) + "|")
            for row in section.rows:
                lines.append("| " + " | ".join(_md_cell(cell) for cell in row) + " |")
        else:
            lines.append("None.")
        if section.note:
            lines += ["", section.note]
        lines.append("")
    return "\n".join(lines)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
