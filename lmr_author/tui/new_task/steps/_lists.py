"""Option lists whose rows wrap whole at the width they are drawn at.

Textual's `OptionList` keeps each row as first drawn, whatever the width: when its
scrollbar appears the rows drawn before keep their two last columns, under the
scrollbar ("⚠ copy▅▅"); and `SelectionList` cuts a long row with an ellipsis. These
draw a row again when the width changes and wrap every row (a copy's similarity, a
suggestion's note), so no text of a row is out of sight.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widgets import Checkbox, OptionList, SelectionList


def _forget_rows_at_a_new_width(listing: OptionList, drawn: list[int]) -> None:
    """Drop the rows drawn (Textual's cache, keyed without the width) at a new width."""
    width = listing.scrollable_content_region.width
    if width != drawn[0] and width > 0:
        drawn[0] = width
        listing._option_render_cache.clear()
        listing._line_cache.clear()


class WrappedOptionList(OptionList):
    """An `OptionList` that draws its rows again at a new width."""

    def _update_lines(self) -> None:
        _forget_rows_at_a_new_width(self, self.__dict__.setdefault("_drawn", [-1]))
        super()._update_lines()


class WrappedSelectionList(SelectionList[str]):
    """A `SelectionList` whose rows wrap instead of ending in "…"."""

    DEFAULT_CSS: ClassVar[str] = """
    WrappedSelectionList {
        text-wrap: wrap;
        text-overflow: fold;
    }
    """

    def _update_lines(self) -> None:
        _forget_rows_at_a_new_width(self, self.__dict__.setdefault("_drawn", [-1]))
        super()._update_lines()

    def render_line(self, y: int) -> Strip:
        # Textual's SelectionList takes a screen line for a row (one line each): the
        # tick box of a wrapped row goes on its first line, the others are indented.
        line = OptionList.render_line(self, y)
        at = self.scroll_offset.y + y
        if at >= len(self._lines):
            return line
        index, line_number = self._lines[at]
        selection = self.get_option_at_index(index)
        underlying = next(iter(line)).style or self.rich_style
        if line_number:
            return Strip([Segment(" " * self._get_left_gutter_width(), underlying), *line])
        component = "selection-list--button"
        if selection.value in self._selected:
            component += "-selected"
        if self.highlighted == index:
            component += "-highlighted"
        button = self.get_component_rich_style(component) + Style(meta={"option": index})
        side = Style.from_color(button.bgcolor, underlying.bgcolor) + Style(meta={"option": index})
        return Strip(
            [
                Segment(Checkbox.BUTTON_LEFT, side),
                Segment(Checkbox.BUTTON_INNER, button),
                Segment(Checkbox.BUTTON_RIGHT, side),
                Segment(" ", underlying),
                *line,
            ]
        )
