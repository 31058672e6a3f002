"""Turn an agreement report (`lmr_author.labels.agreement_report`) into a summary and tables.

The report is laid out as plain data: a one-screen `summary` (what went in, the headline
numbers, what was not counted) and `sections` (title, typed columns, rows, legend), so
the terminal tables and the Markdown (both drawn by
`lmr_author.commands._render_agreement`; tables fitted to the terminal's width) show
exactly the same numbers;
``--json`` prints the report's ``to_json()``. Column names are short and explained by a
legend; each column says whether it is a key, a number (never split) or free text, and
whether it may be left out on a narrow terminal (the confidence intervals).
"""

from __future__ import annotations

from typing import Any

from lmr_author.domain.identity import display_task, natural_key
from lmr_author.domain.table_model import Column, Section
from lmr_author.domain.thin_rows import describe, footnote, mark
from lmr_author.labels.agreement_report import (
    AgreementReport,
    BetweenAnnotators,
    Disagreement,
    JudgeVsHuman,
    Statistic,
    TableStats,
    ViewAgreement,
)
from lmr_author.labels.matching import JUDGE, MissingItem, StaleLabel, UnparsedAnswer

#: How the judge is named in the short column names and rows.
LLM = "LLM"
#: The command-line option of each filter of `ReportInputs.filters`.
_OPTIONS = {"annotators": "--annotator", "systems": "--system"}


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _value(stat: Statistic | None, percent: bool) -> str:
    if stat is None or stat.value is None:
        return "–"
    return _pct(stat.value * 100.0) if percent else _num(stat.value)


def _ci(stat: Statistic | None, percent: bool) -> str:
    if stat is None or stat.ci is None:
        return ""
    scale, fmt = (100.0, _pct) if percent else (1.0, _num)
    return f"[{fmt(stat.ci[0] * scale)}, {fmt(stat.ci[1] * scale)}]"


def _with_ci(stat: Statistic | None, percent: bool) -> str:
    value, ci = _value(stat, percent), _ci(stat, percent)
    if percent and value != "–":
        value += "%"
    return f"{value} {ci}" if ci else value


# -- the summary ------------------------------------------------------------------------


def summary(report: AgreementReport) -> list[tuple[str, str]]:
    """The headline of the report as (what, text) lines, short enough for one screen."""
    inputs = report.inputs
    lines: list[tuple[str, str]] = []
    if inputs.annotator_labels:
        included = ", ".join(
            f"{name} ({found.labels}{_dates(found.first, found.last)})"
            for name, found in inputs.annotator_labels.items()
        )
    else:
        included = "none"
    lines.append(("annotators", included))
    for source in inputs.described.get("human", []):
        lines.append(("human source", str(source)))
    filters = [
        f"{_OPTIONS.get(kind, kind)} {', '.join(names)}"
        for kind, names in inputs.filters.items()
        if names
    ]
    if filters or inputs.filtered_out:
        left_out = ", ".join(f"{n} {what}" for what, n in inputs.filtered_out.items())
        lines.append(
            ("filters", "; ".join(filters) + (f" (left out: {left_out})" if left_out else ""))
        )
    elif inputs.described.get("human"):
        lines.append(
            ("filters", "none: every label of these sources counts (--annotator, --system)")
        )
    if inputs.judge is not None:
        lines.append(("judge", f"{inputs.judge['path']} ({inputs.judge['kind']})"))
    unread = len(report.unparsed)
    lines.append(
        (
            "counted",
            f"{inputs.items} items; {inputs.human_labels_counted} human labels; "
            f"{inputs.judge_labels_counted} judge labels"
            + (f"; {unread} judge answers unread" if inputs.judge is not None else ""),
        )
    )
    thin = thin_lines(report)
    if thin:
        lines.append(("thin rows", "; ".join(thin)))
    for view, name in ((report.three_way, "3-way"), (report.binary, "CC/not")):
        versus = view.judge_vs_human
        if versus is None:
            continue
        pooled = versus.pooled
        text = f"agreement {_with_ci(pooled.percent_agreement, True)}"
        if pooled.direct_conflict_rate is not None:
            text += f"; direct conflicts {_with_ci(pooled.direct_conflict_rate, True)}"
        text += f"; κ {_with_ci(pooled.cohen_kappa, False)}; {pooled.n} pairs"
        lines.append((f"{LLM} vs humans, {name}", text))
    humans = report.three_way.between_annotators.groups.get("humans")
    pairs = report.three_way.between_annotators.pairwise
    if humans is not None:
        text = f"α {_with_ci(humans.alpha.statistic, False)} ({humans.alpha.items} items)"
        if len(pairs) == 1:
            only = pairs[0].stats
            if only.n:
                text += f"; agreement {_with_ci(only.percent_agreement, True)} ({only.n} items)"
            else:
                text += "; no item labelled by both"
        lines.append(("between humans", text))
    missing = len(report.missing)
    lines.append(
        (
            "not counted",
            f"{len(report.stale)} stale labels; {unread} unread judge answers; "
            f"{missing} items missing from a source; {len(report.disagreements)} "
            "disagreements listed below",
        )
    )
    return lines


def thin_lines(report: AgreementReport) -> list[str]:
    """Per side, the systems whose row rests on few items (`lmr_author.domain.thin_rows`)."""
    counts = {row.system: row for row in report.distribution}
    lines = []
    for side, medians in report.thin().items():
        if medians:
            names = sorted(medians, key=natural_key)
            shown = ", ".join(
                describe(name, counts[name].count(side), medians[name]) for name in names
            )
            lines.append(f"{side}: {shown}")
    return lines


def _dates(first: str, last: str) -> str:
    if not first:
        return ""
    first_day, last_day = first[:10], last[:10]
    return f", {first_day}" if first_day == last_day else f", {first_day}…{last_day}"


# -- the sections -----------------------------------------------------------------------


def sections(report: AgreementReport, *, limit: int | None = None) -> list[Section]:
    """The report as tables; ``limit`` caps the rows of the long lists (None = all)."""
    intervals = report.inputs.bootstrap.resamples > 0
    level = round(report.inputs.bootstrap.level * 100)
    out = [_distribution(report)]
    for view, title, three_way in (
        (report.three_way, "three-way (LI / LC / CC)", True),
        (report.binary, "CC vs not CC", False),
    ):
        out.append(_view(view, title, three_way, intervals, level))
    out.append(_disagreements(report.disagreements, limit))
    out.append(_missing(report.missing, limit))
    out.append(_stale(report.stale, limit))
    if report.unparsed:
        out.append(_unparsed(report.unparsed, limit))
    if report.notes:
        out.append(Section("Notes", [Column("note", "text")], [[note] for note in report.notes]))
    return out


def _cap(rows: list[Any], limit: int | None) -> list[Any]:
    return rows if limit is None else rows[:limit]


def _more(rows: list[Any], limit: int | None) -> str:
    if limit is None or len(rows) <= limit:
        return ""
    return f"{len(rows) - limit} more not shown; use --limit, --json or --markdown for all."


def _item_order(row: Disagreement | MissingItem | StaleLabel | UnparsedAnswer) -> tuple[Any, ...]:
    return (natural_key(row.system), natural_key(display_task(row.task)), row.implementation)


def _distribution(report: AgreementReport) -> Section:
    rows = report.distribution
    has_judge = report.has_judge
    has_runs = any(row.runs for row in rows)
    columns = [Column("system", "key")]
    legend = []
    if has_runs:
        columns.append(Column("UT%", group="unit"))
        legend.append("UT%: unit tests passed")
    who = [("J", "judge")] if has_judge else []
    who.append(("H", "human"))
    for short, group in who:
        columns += [Column(f"{short} {x}", group=group) for x in ("CC", "LC", "LI")]
        columns.append(Column(f"{short} n", group=group))
    if has_judge:
        legend.append("J: the LLM judge")
    legend.append("H: the humans, every annotator's labels pooled")
    legend.append("CC / LC / LI: % of the system's labels; n: labels")
    if has_judge:
        columns += [Column("J=H%", group="versus"), Column("1v3%", group="versus")]
        legend.append("J=H%: judge agrees with a human label")
        legend.append("1v3%: direct conflicts, LI against CC")
    what = "unit tests and " if has_runs else ""
    thin = report.thin()
    marked = sorted({name for side in thin.values() for name in side}, key=natural_key)
    section = Section(
        f"Per system: {what}CC / LC / LI", columns, legend=legend, note=footnote(marked)
    )
    for row in sorted(rows, key=lambda x: natural_key(x.system)):
        cells = [row.system]
        if has_runs:
            cells.append(_pct(row.unit_tests.percent) if row.unit_tests.counted else "–")
        sides = (
            (("judge", row.judge), ("human", row.human)) if has_judge else (("human", row.human),)
        )
        for side, data in sides:
            cells += [_pct(data.percent(name)) for name in ("CC", "LC", "LI")]
            cells.append(mark(data.total, row.system in thin[side]))
        versus = (report.judge_vs_human or {}).get(row.system)
        if has_judge:
            for value in (
                versus.percent_agreement if versus else None,
                versus.direct_conflict_rate if versus else None,
            ):
                cells.append(_pct(value * 100.0) if value is not None else "–")
        section.rows.append(cells)
    return section


def _view(view: ViewAgreement, title: str, three_way: bool, intervals: bool, level: int) -> Section:
    """One view as one table: the judge against the humans, then the humans among them."""
    columns = [Column("raters", "key"), Column("n")]
    stats: list[tuple[str, bool]] = [("agree%", True)]
    if three_way:
        stats.append(("1v3%", True))
    stats += [("κ", False), ("κ lin", False)]
    for name, _percent in stats:
        columns.append(Column(name, group=name))
        if intervals:
            columns.append(Column(f"{name} CI", optional=True, group=name))
    legend = [
        "n: pairs of labels (items for α and Fleiss κ)",
        "agree%: the same label",
    ]
    if three_way:
        legend.append("1v3%: direct conflicts, LI against CC")
    legend += [
        "κ: Cohen's kappa, or in their rows Krippendorff's α and Fleiss' κ",
        "κ lin: linear-weighted kappa",
    ]
    if intervals:
        legend.append(f"CI: {level}% bootstrap interval")
    section = Section(f"Agreement, {title}", columns, legend=legend)

    def add(name: str, n: str, row: TableStats) -> None:
        values: list[Statistic | None] = [row.percent_agreement]
        if three_way:
            values.append(row.direct_conflict_rate)
        values += [row.cohen_kappa, row.cohen_kappa_linear]
        cells = [name, n]
        for (_, percent), stat in zip(stats, values, strict=True):
            cells.append(_value(stat, percent))
            if intervals:
                cells.append(_ci(stat, percent))
        section.rows.append(cells)

    notes = []
    if view.judge_vs_human is not None:
        versus: JudgeVsHuman = view.judge_vs_human
        add(f"{LLM} vs all humans", str(versus.pairs), versus.pooled)
        for row in versus.per_annotator:
            add(f"{LLM} vs {row.annotator}", str(row.stats.n), row.stats)
        notes.append(
            f"{LLM} (rows) × humans (columns), {' / '.join(view.categories)}: "
            + _matrix(versus.pooled.confusion)
        )
    between: BetweenAnnotators = view.between_annotators
    apart: list[str] = []
    for pair in between.pairwise:
        if not pair.stats.n:
            # Annotators who labelled disjoint items (as the published four did) have no
            # agreement to show: one line for all of them, not rows of dashes and zeros.
            apart.append(" and ".join(pair.annotators))
            continue
        add(" vs ".join(pair.annotators), str(pair.stats.n), pair.stats)
        notes.append(
            f"{pair.annotators[0]} (rows) × {pair.annotators[1]}: {_matrix(pair.stats.confusion)}"
        )
    if apart:
        notes.append(f"{len(apart)} pair(s) of annotators share no item: " + "; ".join(apart))
    blank = ["", ""] if intervals else [""]
    before_kappa = len(stats) - 2  # agree% (and 1v3%) come before κ
    for group, label in (("humans", "humans"), ("humans_and_judge", f"humans + {LLM}")):
        found = between.groups.get(group)
        if found is None:
            continue
        for name, n, stat in (
            (f"α {found.alpha.level}, {label}", found.alpha.items, found.alpha.statistic),
            (f"Fleiss κ, {label}", found.fleiss.items, found.fleiss.statistic),
        ):
            cells = [name, str(n), *(blank * before_kappa), _value(stat, False)]
            cells += [_ci(stat, False)] if intervals else []
            cells += blank
            section.rows.append(cells)
    if notes:
        section.note = "Confusion, " + "; ".join(notes) + "."
    return section


def _matrix(rows: list[list[int]]) -> str:
    return " | ".join(" ".join(str(v) for v in row) for row in rows)


_ITEM_COLUMNS = [Column("system", "key"), Column("task", "key"), Column("impl", "key")]


def _item_cells(x: Disagreement | MissingItem | StaleLabel | UnparsedAnswer) -> list[str]:
    return [x.system, display_task(x.task), str(x.implementation)]


def _disagreements(rows: list[Disagreement], limit: int | None) -> Section:
    section = Section(
        f"Disagreements for adjudication ({len(rows)})",
        [
            *_ITEM_COLUMNS,
            Column("labels", "text"),
            Column("1v3", "label"),
            Column("verdict", "label"),
            Column("comments", "text"),
        ],
        note=_more(rows, limit),
        legend=["1v3: a direct conflict (LI against CC)", "verdict: unit tests"],
    )
    for x in _cap(sorted(rows, key=_item_order), limit):
        section.rows.append(
            [
                *_item_cells(x),
                ", ".join(f"{_rater(r)}: {v}" for r, v in x.ratings.items()),
                "yes" if x.direct_conflict else "",
                x.verdict or "",
                "; ".join(f"{_rater(r)}: {c}" for r, c in x.comments.items()),
            ]
        )
    return section


def _rater(name: str) -> str:
    return LLM if name == JUDGE else name


def _missing(rows: list[MissingItem], limit: int | None) -> Section:
    section = Section(
        f"Items missing from a source ({len(rows)})",
        [*_ITEM_COLUMNS, Column("present in", "text"), Column("missing from", "text")],
        note=_more(rows, limit),
        legend=[
            "missing from: runs or judge lacking an item, or 'humans' when no annotator "
            "labelled it (one annotator need not label every item)"
        ],
    )
    for x in _cap(sorted(rows, key=_item_order), limit):
        section.rows.append(
            [
                *_item_cells(x),
                ", ".join(map(_rater, x.present_in)),
                ", ".join(map(_rater, x.missing_from)),
            ]
        )
    return section


def _stale(rows: list[StaleLabel], limit: int | None) -> Section:
    section = Section(
        f"Labels of a candidate that changed since (not counted) ({len(rows)})",
        [
            *_ITEM_COLUMNS,
            Column("rater", "label"),
            Column("label", "label"),
            Column("labelled", "label"),
            Column("run", "label"),
        ],
        note=_more(rows, limit),
        legend=["labelled / run: first 12 hex digits of the candidate's SHA-256"],
    )
    for x in _cap(sorted(rows, key=_item_order), limit):
        section.rows.append(
            [*_item_cells(x), _rater(x.rater), x.label, x.labelled_sha256[:12], x.run_sha256[:12]]
        )
    return section


def _unparsed(rows: list[UnparsedAnswer], limit: int | None) -> Section:
    section = Section(
        f"Judge answers that could not be read (not counted) ({len(rows)})",
        [*_ITEM_COLUMNS, Column("file", "text")],
        note=_more(rows, limit),
    )
    for x in _cap(sorted(rows, key=_item_order), limit):
        section.rows.append([*_item_cells(x), x.file])
    return section
