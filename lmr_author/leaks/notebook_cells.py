"""The code cells of a Jupyter notebook, read as data (a malformed notebook has none).

Both layouts are read: nbformat 4 (``cells``, ``source`` a string or a list of lines)
and nbformat 3 (``worksheets[].cells``, ``input``). IPython's ``%magic`` and ``!shell``
lines are blanked (kept as empty lines so that line numbers stay those of the cell).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lmr_author.util.errors import UserError
from lmr_author.util.json_input import parse_json


@dataclass(frozen=True)
class Cell:
    number: int  # 1-based, counting every cell of the notebook
    source: str


def code_cells(text: str) -> list[Cell]:
    """The code cells of the notebook ``text``; [] when it is not a notebook."""
    try:
        document = parse_json(text, what="notebook")
    except (UserError, ValueError, RecursionError):
        return []
    if not isinstance(document, dict):
        return []
    cells: list[Any] = []
    if isinstance(document.get("cells"), list):
        cells = document["cells"]
    elif isinstance(document.get("worksheets"), list):
        for sheet in document["worksheets"]:
            if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list):
                cells.extend(sheet["cells"])
    found = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = _text(cell.get("source", cell.get("input", "")))
        if source.strip():
            found.append(Cell(number, _without_magics(source)))
    return found


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(item for item in value if isinstance(item, str))
    return ""


def _without_magics(source: str) -> str:
    lines = source.splitlines()
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)
