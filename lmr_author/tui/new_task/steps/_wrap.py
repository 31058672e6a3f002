"""Wrap names and paths at their own break points, never mid-token when there is one.

Rich and Textual wrap at spaces and fold a word longer than its column anywhere
("AdamWScheduleFreeReference.s / tep"); a qualified name or a path has better places to
break: after a space, a ``.``, a ``/``, a ``:`` or a ``,`` first, then after an ``_``
inside a name, then between a lower-case letter and a capital (``ScheduleFree``), and
only a piece that is still too long is cut at the column's edge.
"""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import StyleType
from rich.text import Text

#: A piece ends after a space run or one of these (the preferred break points).
_PIECES = re.compile(r"[^\s./:,]*(?:[./:,]|\s+|$)")
#: Inside a piece too long for its line: after an underscore that follows a letter.
_UNDERSCORE = re.compile(r"[^_]+_+|_*[^_]+_*$|_+")
#: Then before a capital that follows a lower-case letter or a digit.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _split(piece: str, width: int) -> list[str]:
    """``piece`` in parts of at most ``width`` cells, cut after ``_`` where it can be."""
    if cell_len(piece) <= width:
        return [piece]
    parts: list[str] = []
    for part in _UNDERSCORE.findall(piece) or [piece]:
        words = _CAMEL.split(part) if cell_len(part) > width else [part]
        for word in words:
            while cell_len(word) > width:  # no break point left: the column's edge
                parts.append(word[:width])
                word = word[width:]
            parts.append(word)
    return parts


def wrap_lines(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken at its break points."""
    width = max(width, 1)
    lines: list[str] = []
    line = ""
    for piece in (p for p in _PIECES.findall(text) if p):
        for part in _split(piece, width):
            if line and cell_len(line + part.rstrip()) > width:
                lines.append(line.rstrip())
                line = part.lstrip()
            else:
                line += part
    lines.append(line.rstrip())
    return lines


def wrap_text(text: str, width: int) -> str:
    return "\n".join(wrap_lines(text, width))


class BoundaryWrapped:
    """A Rich renderable of ``text`` wrapped by `wrap_lines` at the width it is given
    (a table's column, an option list's row)."""

    def __init__(self, text: str, style: StyleType = "") -> None:
        self.text = text
        self.style = style

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        longest = max((cell_len(p.strip()) for p in _PIECES.findall(self.text)), default=1)
        return Measurement(min(longest, options.max_width), cell_len(self.text))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(wrap_text(self.text, options.max_width), style=self.style, overflow="fold")
