"""Draw an agreement report for the terminal it gets (``NO_COLOR`` is honoured by rich).

The summary comes first and fits one screen. Each section is then drawn as a table that
fits the console's width: numbers and keys are never wrapped (a "100.0" never splits),
free text wraps; when a table is still too wide the optional columns (confidence
intervals) are left out, and if that is not enough the table is split into parts that
each repeat the key columns, keeping column groups (judge, human) together. Columns with
nothing in them are not drawn.
"""

from __future__ import annotations

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from lmr_author.commands._markdown import md_cell, section_markdown
from lmr_author.domain.table_model import Column, Section
from lmr_author.labels.agreement_report import AgreementReport
from lmr_author.labels.report import sections, summary

#: Width a free-text column is given when sizing a table (it wraps beyond).
TEXT_WIDTH = 8
#: Each column's padding (one space each side) plus the space that separates columns.
GAP = 3


def print_report(
    report: AgreementReport, *, limit: int | None = 50, console: Console | None = None
) -> None:
    """The summary, then the report's sections as tables that fit ``console``'s width."""
    console = console or Console()
    console.print(Text("Agreement between human annotators and the LLM judge", style="bold"))
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for what, text in summary(report):
        grid.add_row(what, text)
    console.print(grid)
    for section in sections(report, limit=limit):
        console.print()
        if not section.rows:
            console.print(Text(f"{section.title}: none.", style="bold"))
            continue
        tables, legend = fit(section, console.width)
        for table in tables:
            console.print(table)
        if legend:
            console.print(Text(legend, style="dim"))


def fit(section: Section, width: int) -> tuple[list[Table], str]:
    """``section`` as one table or several, none wider than ``width``, and its legend."""
    # A column with nothing in it (no verdicts, no comments) takes no room.
    indices = [
        i
        for i, column in enumerate(section.columns)
        if column.kind == "key" or any(row[i] for row in section.rows)
    ]
    hidden = {column.name for i, column in enumerate(section.columns) if i not in indices}
    legend = [x for x in section.legend if x.split(":")[0] not in hidden]
    if _width(section, indices) > width:
        kept = [i for i in indices if not section.columns[i].optional]
        if len(kept) < len(indices):
            indices = kept
            legend = [x for x in legend if not x.startswith("CI:")]
            legend.append("intervals left out at this width (--markdown or --json has them)")
    parts = _split(section, indices, width)
    tables = []
    for number, part in enumerate(parts, start=1):
        title = section.title
        if len(parts) > 1:
            title += f" ({number}/{len(parts)})"
        tables.append(_table(section, part, title, width))
    text = "; ".join(legend) + "." if legend else ""
    if section.note:
        text = f"{text} {section.note}".strip()
    return tables, text


def _split(section: Section, indices: list[int], width: int) -> list[list[int]]:
    """Column indices per table: keys in every table, groups kept together if they fit."""
    keys = [i for i in indices if section.columns[i].kind == "key"]
    rest = [i for i in indices if section.columns[i].kind != "key"]
    if _width(section, indices) <= width or not rest:
        return [indices]
    groups: list[list[int]] = []
    for i in rest:
        name = section.columns[i].group
        if groups and name and section.columns[groups[-1][0]].group == name:
            groups[-1].append(i)
        else:
            groups.append([i])
    parts: list[list[int]] = []
    current: list[int] = []
    for members in groups:
        fits = _width(section, keys + members) <= width
        for piece in [members] if fits else [[i] for i in members]:
            if current and _width(section, keys + current + piece) > width:
                parts.append(keys + current)
                current = []
            current += piece
    if current:
        parts.append(keys + current)
    return parts


def _cell_width(section: Section, index: int) -> int:
    column = section.columns[index]
    cells = [cell_len(row[index]) for row in section.rows]
    if column.kind == "text":
        return min(max([cell_len(word) for word in column.name.split()] + cells), TEXT_WIDTH)
    return max([cell_len(column.name), *cells])


def _width(section: Section, indices: list[int]) -> int:
    """The table's width in `_table`'s layout: no outer edge, padding and a separator."""
    return sum(_cell_width(section, i) + GAP for i in indices) - GAP


def _table(section: Section, indices: list[int], title: str, width: int) -> Table:
    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1),
    )
    # Text wraps, keys do not; when the keys leave a text column too little room (long
    # task and system names at 80 columns), the widest key folds instead, so that a
    # short text such as "LLM: LI, kaiyu: LC" stays on one line.
    text_width = {
        i: min(max([cell_len(r[i]) for r in section.rows] or [TEXT_WIDTH]), width // 4)
        for i in indices
        if section.columns[i].kind == "text"
    }
    others = [i for i in indices if i not in text_width]
    deficit = sum(_cell_width(section, i) for i in others) + sum(text_width.values())
    deficit += GAP * (len(indices) - 1) - width
    keys = [i for i in others if section.columns[i].kind == "key"]
    squeezed = max(keys, key=lambda i: _cell_width(section, i)) if deficit > 0 and keys else None
    for i in indices:
        column: Column = section.columns[i]
        if column.kind == "text":
            table.add_column(column.name, overflow="fold", min_width=max(TEXT_WIDTH, text_width[i]))
        elif i == squeezed:
            narrower = max(10, _cell_width(section, i) - deficit)
            table.add_column(column.name, overflow="fold", min_width=narrower, max_width=narrower)
        else:
            table.add_column(
                column.name,
                no_wrap=True,
                justify="right" if column.kind == "number" else "left",
                min_width=_cell_width(section, i),
            )
    for row in section.rows:
        table.add_row(*(row[i] for i in indices))
    return table


def to_markdown(report: AgreementReport) -> str:
    """The whole report as GitHub-flavoured Markdown (every row, every column)."""
    lines = ["# Agreement between human annotators and the LLM judge", ""]
    for what, text in summary(report):
        lines.append(f"- **{what}**: {md_cell(text)}")
    inputs = report.inputs
    if inputs.bootstrap.resamples:
        lines.append(
            f"- **bootstrap**: {inputs.bootstrap.resamples} resamples, seed {inputs.bootstrap.seed}"
        )
    lines.append("")
    for section in sections(report):
        lines += section_markdown(section)
    return "\n".join(lines)
