"""Markdown of a `lmr_author.domain.table_model.Section`: one way for every report."""

from __future__ import annotations

from lmr_author.domain.table_model import Section


def md_cell(text: str) -> str:
    """A cell's text that cannot break the table (pipes escaped, one line)."""
    return text.replace("|", "\\|").replace("\n", " ")


def section_markdown(section: Section, *, empty: str | None = "None.") -> list[str]:
    """``## title``, then the table (or a list, for a section without columns), its legend
    and its note, and a blank line. ``empty`` stands for a table without rows (None: the
    header alone)."""
    lines = [f"## {section.title}", ""]
    if not section.columns:  # a list: lines wrap in a terminal, table cells do not
        lines += [f"- {md_cell(row[0])}" for row in section.rows]
    elif section.rows or empty is None:
        lines.append("| " + " | ".join(md_cell(name) for name in section.header) + " |")
        lines.append("|" + "|".join("---" for _ in section.header) + "|")
        lines += ["| " + " | ".join(md_cell(cell) for cell in row) + " |" for row in section.rows]
    else:
        lines.append(empty)
    if section.legend:
        lines += ["", "; ".join(section.legend) + "."]
    if section.note:
        lines += ["", section.note]
    lines.append("")
    return lines
