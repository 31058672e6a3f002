"""Draw a `lmr_author.reporting.tables.Report`: Markdown, and an HTML page with plots.

The tables are laid out once as plain sections (title, header, rows), so Markdown and
HTML show the same numbers. Plots are made with matplotlib's Agg backend (no display)
and written as PNG and SVG next to ``index.html``; every file goes through
`lmr_author.util.atomic`.
"""

from __future__ import annotations

import html
import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.commands._markdown import md_cell, section_markdown
from lmr_author.domain.table_model import Section, named_columns
from lmr_author.domain.thin_rows import RULE, describe, footnote, mark
from lmr_author.util.atomic import atomic_write_bytes, atomic_write_text

if TYPE_CHECKING:
    from lmr_author.domain.scoring import LabelCounts, SystemScore
    from lmr_author.reporting.regression import LeftOut, RegressionResult
    from lmr_author.reporting.tables import Report

DASH = "–"


def _section(
    title: str, header: list[str], rows: list[list[str]] | None = None, note: str = ""
) -> Section:
    """A section of the paper's tables: its first column names the row."""
    return Section(title, named_columns(header), rows or [], note)


def _pct(value: float | None) -> str:
    return DASH if value is None else f"{100.0 * value:.1f}"


def _labels(counts: LabelCounts, thin: bool = False) -> list[str]:
    shares = [_pct(counts.fraction(label)) for label in ("CC", "LC", "LI")]
    return [*shares, mark(counts.total, thin)]


#: How the counts of Table 2 are named in the thin-rows line.
_COUNT_NAMES = {"unit_tests": "unit-test runs", "judge": "judged runs", "human": "human labels"}


def thin_lines(report: Report) -> list[str]:
    """Per count of Table 2, the rows that rest on few items (`lmr_author.domain.thin_rows`)."""
    lines = []
    for what, rows in report.thin().items():
        if rows:
            shown = ", ".join(
                describe(_name(report.rows[i]), report.rows[i].count(what), median)
                for i, median in rows.items()
            )
            lines.append(f"{_COUNT_NAMES[what]}: {shown}")
    return lines


def _name(row: SystemScore) -> str:
    return row.system + (" (published)" if row.published else "")


#: Where each compared cell sits in a Table 2 row.
_CELL_POSITIONS = {
    "unit test": 2,
    "judge CC": 4,
    "judge LC": 5,
    "judge LI": 6,
    "human CC": 8,
    "human LC": 9,
    "human LI": 10,
}


def _mark(i: int) -> str:
    """Footnote marks a, b, ..., z, aa, ab, ..."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[i] if i < len(letters) else letters[i // 26 - 1] + letters[i % 26]


def _footnote_marks(report: Report) -> dict[tuple[str, str], str]:
    """``(system, column)`` -> its footnote marks, e.g. ``[a]``."""
    from lmr_author.domain.identity import Identity

    identity = Identity()
    marks: dict[tuple[str, str], str] = {}
    by_canonical = {identity.canonical_system(row.system): row.system for row in report.rows}
    for i, note in enumerate(report.footnotes):
        system = by_canonical.get(note.system, note.system)
        for column in note.columns:
            marks[(system, column)] = marks.get((system, column), "") + f"[{_mark(i)}]"
    return marks


def sections(report: Report, regression: RegressionResult | None = None) -> list[Section]:
    """The report's tables, in the paper's order."""
    out: list[Section] = []
    thin = report.thin()
    marked = [_name(row) for i, row in enumerate(report.rows) if any(i in x for x in thin.values())]
    table2 = _section(
        "Table 2: unit tests, LLM judge and human labels (%)",
        [
            "system",
            "setting",
            "unit test",
            "runs",
            "judge CC",
            "judge LC",
            "judge LI",
            "judged",
            "human CC",
            "human LC",
            "human LI",
            "labels",
        ],
        note="Unit-test accuracy leaves out runs that failed for reasons of infrastructure; "
        "judge percentages are of the runs judged (unparsed answers included); human "
        f"percentages count every annotator's latest label once. {footnote(marked)}".strip(),
    )
    in_process = [
        f"{_name(row)} {row.in_process.counted} of {row.unit_tests.counted}"
        for row in report.rows
        if row.in_process.counted
    ]
    if in_process:
        table2.note += (
            " Runs whose candidate ran in the test's process (its goal cannot cross to a "
            "process of its own; such a candidate could forge its verdict): "
            + ", ".join(in_process)
            + "."
        )
    marks = _footnote_marks(report)
    for i, row in enumerate(report.rows):
        cells = [
            _name(row),
            row.setting or DASH,
            _pct(row.unit_tests.accuracy),
            mark(row.unit_tests.counted, i in thin["unit_tests"]),
            *_labels(row.judge, i in thin["judge"]),
            *_labels(row.human, i in thin["human"]),
        ]
        for column, position in _CELL_POSITIONS.items():
            found = marks.get((row.system, column)) if not row.setting else None
            if found:
                cells[position] += found
        table2.rows.append(cells)
    out.append(table2)
    if report.settings:
        table3 = _section(
            "Table 3: settings side by side (%)",
            ["setting", "system", "unit test", "judge CC", "judge LC", "judge LI"],
        )
        for setting in report.settings:
            for row in report.rows:
                if row.setting == setting:
                    table3.rows.append(
                        [
                            setting,
                            row.system,
                            _pct(row.unit_tests.accuracy),
                            *_labels(row.judge)[:3],
                        ]
                    )
        out.append(table3)
    table6 = _section(
        "Table 6: completely correct vs not (%)",
        ["system", "setting", "judge CC", "judge not CC", "human CC", "human not CC"],
    )
    for row in report.rows:
        cells = [_name(row), row.setting or DASH]
        for counts in (row.judge, row.human):
            cc = counts.fraction("CC")
            cells += [_pct(cc), _pct(None if cc is None else 1.0 - cc)]
        table6.rows.append(cells)
    out.append(table6)
    scored = [row for row in report.rows if not row.published]
    categories = sorted({c for row in scored for c in row.categories})
    if categories:
        per_category = _section(
            "Unit-test accuracy per category (%, passed/runs)",
            ["category", *(r.system + (f" [{r.setting}]" if r.setting else "") for r in scored)],
        )
        for category in categories:
            cells = [category]
            for row in scored:
                tally = row.categories.get(category)
                cells.append(
                    DASH
                    if tally is None
                    else f"{_pct(tally.accuracy)} ({tally.passed}/{tally.counted})"
                )
            per_category.rows.append(cells)
        out.append(per_category)
    if report.category_distribution:
        total = sum(report.category_distribution.values())
        out.append(
            _section(
                "Category distribution of the benchmark (Figure 2)",
                ["category", "implementations", "%"],
                [
                    [name, str(count), _pct(count / total if total else None)]
                    for name, count in report.category_distribution.items()
                ],
                note="The paper's nine categories; published spellings are mapped as "
                "docs/report.md lists.",
            )
        )
    if report.strength:
        out.append(
            _section(
                "Test strength (mutation scores stored with the tasks)",
                ["implementation", "score", "killed", "equiv.", "surv.", "tests", "measured"],
                [
                    [
                        f"{row.task} #{row.implementation}",
                        f"{row.score:.0%}",
                        f"{row.killed}/{row.counted}",
                        str(row.equivalent),
                        str(row.survivors),
                        str(row.tests),
                        "on this content" if row.current else "stale (the task changed)",
                    ]
                    for row in sorted(report.strength, key=lambda r: (r.score, r.task))
                ],
                note="score: mutants of the golden goal function the tests fail / counted "
                "(run, not marked equivalent); tests: the published test and the extra ones "
                "eval runs (lmr-author strengthen's replay test). A stale score was measured "
                "before the task changed: 'lmr-author strengthen --measure-only TASK'.",
            )
        )
    if report.pass_at_k:
        ks = sorted({k for p in report.pass_at_k for k in p.values})
        out.append(
            _section(
                "pass@k (unbiased estimator of Chen et al. 2021, %)",
                ["system", "setting", "items", "samples", *(f"pass@{k}" for k in ks)],
                [
                    [
                        p.system,
                        p.setting or DASH,
                        str(p.items),
                        str(p.samples),
                        *(_pct(p.values.get(k)) for k in ks),
                    ]
                    for p in report.pass_at_k
                ],
            )
        )
    if regression is not None:
        out.extend(regression_sections(regression))
    if report.footnotes:
        out.append(
            _section(
                "Footnotes to Table 2: cells that differ from the printed table",
                [],
                [[f"[{_mark(i)}] {f.text()}"] for i, f in enumerate(report.footnotes)],
            )
        )
    if report.notes:
        out.append(_section("Notes", [], [[note] for note in report.notes]))
    return out


def regression_sections(result: RegressionResult) -> list[Section]:
    """The coefficient table of Table 5, and the tasks it leaves out."""
    systems = ", ".join(f"{name} {count}" for name, count in result.per_system.items())
    left = len(result.left_out)
    out = [
        _section(
            "Logistic regression of success (Table 5)",
            ["term", "coef", "std err", "z", "P>|z|", "[0.025", "0.975]"],
            [
                [
                    c.name,
                    f"{c.coef:.4f}",
                    f"{c.std_err:.4f}",
                    f"{c.z:.3f}",
                    f"{c.p:.3f}",
                    f"{c.ci_low:.4f}",
                    f"{c.ci_high:.4f}",
                ]
                for c in result.coefficients
            ],
            note=f"n = {result.n}" + (f" ({systems})" if systems else "") + ", McFadden "
            f"pseudo R² = {result.pseudo_r2:.4f}, log-likelihood = "
            f"{result.log_likelihood:.4f}, converged: {'yes' if result.converged else 'no'}; "
            f"predictors standardized; reference system: {result.reference_system} "
            "(system[...] are the other systems' dummies); "
            + (f"{left} task(s) left out, listed below." if left else "no task left out."),
        )
    ]
    if result.left_out:
        out.append(
            _section(
                "Left out of the regression",
                [],
                [[_left_out_line(item)] for item in result.left_out],
            )
        )
    return out


def _left_out_line(item: LeftOut) -> str:
    counted = f" ({item.outcomes} outcome(s))" if item.outcomes else ""
    detail = f": {item.detail}" if item.detail else ""
    return f"{item.task}{counted}: {item.reason}{detail}"


def regression_json(result: RegressionResult) -> dict[str, Any]:
    return {
        "n": result.n,
        "per_system": dict(result.per_system),
        "pseudo_r2": result.pseudo_r2,
        "log_likelihood": result.log_likelihood,
        "converged": result.converged,
        "reference_system": result.reference_system,
        "predictors": list(result.predictors),
        "coefficients": [
            {
                "name": c.name,
                "coef": c.coef,
                "std_err": c.std_err,
                "z": c.z,
                "p": c.p,
                "ci_low": c.ci_low,
                "ci_high": c.ci_high,
            }
            for c in result.coefficients
        ],
        "left_out": [item.to_json() for item in result.left_out],
    }


def to_markdown(report: Report, regression: RegressionResult | None = None) -> str:
    lines = ["# LMR-Bench report", ""]
    if report.benchmark:
        lines += [f"Benchmark: `{report.benchmark}`", ""]
    thin = thin_lines(report)
    if thin:
        lines += [f"**Thin rows** (few items; {RULE}):", ""]
        lines += [f"- {md_cell(line)}" for line in thin]
        lines.append("")
    for section in sections(report, regression):
        lines += section_markdown(section, empty=None)
    return "\n".join(lines)


#: The plots of the HTML page: file stem -> title.
PLOTS = {
    "accuracy": "Unit-test accuracy and completely-correct rate per system",
    "labels": "Three-way labels per system (judge and human)",
    "categories": "Category distribution of the benchmark (Figure 2)",
}


def write_html(
    report: Report, folder: Path, regression: RegressionResult | None = None
) -> list[Path]:
    """``folder/index.html`` and the plots as PNG and SVG; returns every file written."""
    from lmr_author.reporting.plots import INSTALL_HINT, available

    written: list[Path] = []
    images: list[str] = [] if available() else [f"<p>No plots: {html.escape(INSTALL_HINT)}.</p>"]
    for stem, figure in _figures(report).items() if available() else ():
        for suffix in ("png", "svg"):
            buffer = io.BytesIO()
            figure.savefig(buffer, format=suffix, dpi=120, bbox_inches="tight")
            path = folder / f"{stem}.{suffix}"
            atomic_write_bytes(path, buffer.getvalue())
            written.append(path)
        _close(figure)
        images.append(
            f'<figure><img src="{stem}.svg" alt="{html.escape(PLOTS[stem])}">'
            f'<figcaption>{html.escape(PLOTS[stem])} (<a href="{stem}.png">PNG</a>)'
            "</figcaption></figure>"
        )
    benchmark = html.escape(report.benchmark)
    body = [f"<h1>LMR-Bench report</h1><p>Benchmark: <code>{benchmark}</code></p>"]
    thin = thin_lines(report)
    if thin:
        items = "".join(f"<li>{html.escape(line)}</li>" for line in thin)
        body.append(f"<p>Thin rows (few items; {html.escape(RULE)}):</p><ul>{items}</ul>")
    body += images
    for section in sections(report, regression):
        body.append(f"<h2>{html.escape(section.title)}</h2>")
        if not section.header:
            items = "".join(f"<li>{html.escape(row[0])}</li>" for row in section.rows)
            body.append(f"<ul>{items}</ul>")
        else:
            body.append(_html_table(section.header, section.rows))
        if section.note:
            body.append(f"<p>{html.escape(section.note)}</p>")
    page = (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>LMR-Bench report</title><style>body{font-family:sans-serif;margin:2em;"
        "max-width:70em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid "
        "#ccc;padding:.2em .6em;text-align:right}td:first-child,th:first-child{text-align:"
        "left}img{max-width:100%}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
    index = folder / "index.html"
    atomic_write_text(index, page)
    return [index, *written]


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _figures(report: Report) -> dict[str, Any]:
    from lmr_author.commands._numbers import percent
    from lmr_author.reporting.plots import figures

    return figures(report, PLOTS, lambda value: percent(value, digits=0, sign="", missing=DASH))


def _close(figure: Any) -> None:
    import matplotlib.pyplot as plt

    plt.close(figure)
