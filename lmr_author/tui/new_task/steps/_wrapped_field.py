"""A one-line field that wraps instead of scrolling sideways.

An `Input` longer than the screen shows only a window of its text: at 80 columns a
paper's title was cut mid-word with no sign of the rest. This field shows the whole
value over as many lines as it needs (its height follows the text); it stays one line
of text: Enter adds no line break (it moves on, as Tab does) and a pasted one becomes
a space.
"""

from __future__ import annotations

from textual import events
from textual.widgets import TextArea


class WrappedField(TextArea):
    """A single-line value, wrapped on screen (see the module's docstring)."""

    DEFAULT_CSS = """
    WrappedField {
        height: auto;
        max-height: 4;
    }
    """

    def __init__(self, text: str = "", *, id: str | None = None) -> None:
        super().__init__(
            _one_line(text), id=id, soft_wrap=True, tab_behavior="focus", show_line_numbers=False
        )

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.screen.focus_next()
            return
        await super()._on_key(event)

    def _on_text_area_changed(self, event: TextArea.Changed) -> None:
        if "\n" in self.text:  # a paste with line breaks: one line of text still
            self.load_text(_one_line(self.text))
            self.move_cursor(self.document.end)


def _one_line(text: str) -> str:
    return " ".join(text.split())
