"""The status line of a step: what the step says, wrapped over up to three lines.

One line cut at 80 columns hid the end of most results (a build's, a verification's, a
save's): the part that says what happened. The message wraps instead, and only a text
longer than three lines is cut, with an ellipsis; the step keeps such a text whole in
its output, which ctrl+l opens (`StepScreen.set_status`).
"""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.visual import VisualType
from textual.widgets import Static

#: Lines the status may take at most: the step's body keeps the rest of the screen.
MAX_LINES = 3


class StatusLine(Static):
    """A message wrapped to the widget's width, at most `MAX_LINES` lines (a `Static`,
    whose `visual` is the whole message)."""

    DEFAULT_CSS = """
    StatusLine {
        height: auto;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self._text = ""

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        self._text = str(content)
        super().update(self._text, layout=layout)

    def fits(self, text: str, width: int) -> bool:
        """Whether ``text`` is whole in `MAX_LINES` lines of ``width`` cells."""
        return len(Content(text).wrap(max(width, 1))) <= MAX_LINES

    def _lines(self, width: int) -> list[Content]:
        lines = Content(self._text).wrap(max(width, 1))
        if len(lines) > MAX_LINES:
            lines = lines[:MAX_LINES]
            last = lines[-1].rstrip()
            lines[-1] = last.truncate(max(width - 1, 0)) + "…"
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self._lines(width)))

    def render(self) -> Content:
        return Content("\n").join(self._lines(self.content_region.width))
