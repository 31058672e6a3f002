"""The one table model of every report: sections of typed columns and text rows.

`report` (the paper's tables) and `agreement` lay their results out as `Section`s; the
commands draw them (Markdown, HTML, terminal tables fitted to the width) and nothing
else decides how a table looks. Plain data, no rendering here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class Column:
    """One column: its short name, what it holds, and how it may be laid out."""

    name: str
    #: key: names the row (repeated in every part of a split table); number and label:
    #: never wrapped (right and left aligned); text: wraps.
    kind: Literal["key", "number", "label", "text"] = "number"
    #: May be left out when the terminal is too narrow (say so in the legend).
    optional: bool = False
    #: Columns of one group are kept together when a table is split to fit.
    group: str = ""


@dataclass
class Section:
    """One table of the report."""

    title: str
    columns: list[Column]
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""
    #: What the short column names mean, one "name: meaning" per entry.
    legend: list[str] = field(default_factory=list)

    @property
    def header(self) -> list[str]:
        return [column.name for column in self.columns]


def named_columns(names: list[str], key: int = 1) -> list[Column]:
    """Columns from their names: the first ``key`` name the row, the rest are numbers."""
    return [Column(name, "key" if i < key else "number") for i, name in enumerate(names)]
