"""Compare a computed Table 2 with a printed one, cell by cell, and say where they differ.

The product never carries a paper's numbers: the printed table is a file the user gives
(``report --compare-printed FILE``; the LMR-Bench paper's Table 2 is kept as such a file
in ``docs/lmr-bench-table2.json``). Its shape::

    {"title": "LMR-Bench paper, Table 2", "decimals": 1,
     "rows": [{"name": "GPT-4o", "system": "no_agent-gpt4o",
               "unit test": 39.3, "judge CC": 17.9, ..., "human LI": 60.7}]}

``system`` is any spelling `lmr_author.domain.identity` knows. Each printed cell is compared
with the computed percentage rounded half-up to ``decimals``. A cell that differs gets a
footnote saying what the files give (with the counts and where they came from) and why,
when the numbers tell: the computed values of a column group of row A equal the printed
values of row B and the other way round (rows swapped), or no input gives the cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.domain.identity import Identity
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import load_json

if TYPE_CHECKING:
    from lmr_author.domain.scoring import SystemScore
    from lmr_author.reporting.tables import Report

#: The cells of Table 2, grouped as the paper groups its columns.
GROUPS: dict[str, tuple[str, ...]] = {
    "unit test": ("unit test",),
    "judge": ("judge CC", "judge LC", "judge LI"),
    "human": ("human CC", "human LC", "human LI"),
}
COLUMNS = tuple(column for group in GROUPS.values() for column in group)
_HINT = (
    "A printed table is a JSON object with 'rows': a list of objects with 'name', "
    "'system' and any of the columns " + ", ".join(repr(c) for c in COLUMNS) + " (numbers)."
)


@dataclass(frozen=True)
class PrintedRow:
    name: str
    system: str  # canonical
    cells: dict[str, Decimal]


@dataclass(frozen=True)
class PrintedTable:
    path: Path
    title: str
    decimals: int
    rows: list[PrintedRow]


@dataclass(frozen=True)
class Footnote:
    """The cells of one column group of one printed row that the inputs do not reproduce."""

    system: str
    printed_name: str
    columns: tuple[str, ...]
    computed: tuple[str | None, ...]  # as rounded for the comparison; None: no input
    printed: tuple[str, ...]
    why: str

    def text(self) -> str:
        given = "/".join(value if value is not None else "–" for value in self.computed)
        return (
            f"{self.printed_name} ({self.system}), {_join(self.columns)}: the inputs give "
            f"{given}, the printed table {'/'.join(self.printed)}; {self.why}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "printed_name": self.printed_name,
            "cells": [
                {"column": column, "computed": computed, "printed": printed}
                for column, computed, printed in zip(
                    self.columns, self.computed, self.printed, strict=True
                )
            ],
            "why": self.why,
        }


def _join(columns: tuple[str, ...]) -> str:
    """``judge CC``, ``judge LC`` -> ``judge CC/LC``."""
    kinds = {column.split(" ")[0] for column in columns}
    if len(kinds) == 1 and all(" " in column for column in columns):
        return f"{kinds.pop()} " + "/".join(column.split(" ", 1)[1] for column in columns)
    return ", ".join(columns)


def load_printed_table(path: Path, identity: Identity | None = None) -> PrintedTable:
    """Read a printed table (see the module docstring); a `UserError` names the place."""
    identity = identity or Identity()
    data = load_json(path, what="printed table", hint=_HINT)
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise UserError("must be an object with a 'rows' list", file=path, hint=_HINT)
    decimals = data.get("decimals", 1)
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 6:
        raise UserError("must be a whole number 0..6", file=path, where="decimals", hint=_HINT)
    rows: list[PrintedRow] = []
    for i, raw in enumerate(data["rows"]):
        where = f"rows[{i}]"
        if not isinstance(raw, dict):
            raise UserError("must be an object", file=path, where=where, hint=_HINT)
        for key in ("name", "system"):
            if not isinstance(raw.get(key), str) or not raw[key].strip():
                raise UserError("must be a non-empty string", file=path, where=f"{where}.{key}")
        cells: dict[str, Decimal] = {}
        for key, value in raw.items():
            if key in ("name", "system"):
                continue
            if key not in COLUMNS:
                raise UserError(f"unknown column {key!r}", file=path, where=where, hint=_HINT)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise UserError("must be a number", file=path, where=f"{where}.{key}")
            cells[key] = Decimal(repr(value))
        rows.append(PrintedRow(raw["name"], identity.canonical_system(raw["system"]), cells))
    title = data.get("title") if isinstance(data.get("title"), str) else path.name
    return PrintedTable(path, str(title), decimals, rows)


def computed_cells(row: SystemScore) -> dict[str, float | None]:
    """The percentages of a Table 2 row by column name (None: nothing counted)."""
    cells: dict[str, float | None] = {"unit test": _percent(row.unit_tests.accuracy)}
    for kind, counts in (("judge", row.judge), ("human", row.human)):
        for label in ("CC", "LC", "LI"):
            cells[f"{kind} {label}"] = _percent(counts.fraction(label))
    return cells


def _percent(fraction: float | None) -> float | None:
    return None if fraction is None else 100.0 * fraction


def _rounded(value: float | None, decimals: int) -> Decimal | None:
    if value is None:
        return None
    step = Decimal(1).scaleb(-decimals)
    return Decimal(repr(value)).quantize(step, rounding=ROUND_HALF_UP)


def _shown(value: Decimal, decimals: int) -> str:
    return str(value.quantize(Decimal(1).scaleb(-decimals)))


def compare_printed(report: Report, table: PrintedTable) -> list[Footnote]:
    """A footnote per printed cell the report does not reproduce, in printed order."""
    computed: dict[str, dict[str, Decimal | None]] = {}
    counts: dict[str, dict[str, str]] = {}
    for ours in report.rows:
        if ours.setting:
            continue  # Table 3 rows are not the paper's Table 2
        system = Identity().canonical_system(ours.system)
        cells = computed_cells(ours)
        computed[system] = {k: _rounded(v, table.decimals) for k, v in cells.items()}
        counts[system] = _counts(ours)
    printed = {row.system: row for row in table.rows}
    notes: list[Footnote] = []
    for row in table.rows:
        mine = computed.get(row.system, {})
        for group, columns in GROUPS.items():
            wanted = [c for c in columns if c in row.cells]
            differing = [c for c in wanted if mine.get(c) != _at(row.cells[c], table.decimals)]
            if not differing:
                continue
            values = [mine.get(c) for c in differing]
            swapped = _swapped_with(row, group, computed, printed, table.decimals)
            if all(value is None for value in values):
                why = "no input gives these cells (no file for this system)"
            elif swapped is not None:
                why = (
                    f"the inputs give this row the printed row {swapped.name}'s {group} "
                    "values and that row this row's: the printed rows look swapped"
                )
            else:
                why = f"the inputs count {counts[row.system][group]}"
            notes.append(
                Footnote(
                    system=row.system,
                    printed_name=row.name,
                    columns=tuple(differing),
                    computed=tuple(
                        None if v is None else _shown(v, table.decimals) for v in values
                    ),
                    printed=tuple(_shown(row.cells[c], table.decimals) for c in differing),
                    why=why,
                )
            )
    return notes


def _at(value: Decimal, decimals: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def _swapped_with(
    row: PrintedRow,
    group: str,
    computed: dict[str, dict[str, Decimal | None]],
    printed: dict[str, PrintedRow],
    decimals: int,
) -> PrintedRow | None:
    """The printed row whose values of ``group`` this row's inputs give, and vice versa."""
    columns = [c for c in GROUPS[group] if c in row.cells]

    def same(system: str, other: PrintedRow) -> bool:
        mine = computed.get(system, {})
        return bool(columns) and all(
            c in other.cells and mine.get(c) == _at(other.cells[c], decimals) for c in columns
        )

    for other in printed.values():
        if other.system != row.system and same(row.system, other) and same(other.system, row):
            return other
    return None


def _counts(row: SystemScore) -> dict[str, str]:
    def labels(counts: Any) -> str:
        parts = "/".join(str(counts.counts[label]) for label in ("CC", "LC", "LI"))
        unread = f" + {counts.unparsed} unread" if counts.unparsed else ""
        return f"CC/LC/LI {parts}{unread} of {counts.total}"

    return {
        "unit test": f"{row.unit_tests.passed} passed of {row.unit_tests.counted}",
        "judge": labels(row.judge),
        "human": labels(row.human),
    }
