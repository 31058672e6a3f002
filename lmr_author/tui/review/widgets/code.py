"""The golden function and the candidate, side by side or as a unified diff.

Highlighting is Rich's Pygments-based `Syntax`, which needs no extra parser packages and
renders the same on every machine (so snapshots are stable).
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static

from lmr_author.review.content import ItemContent

SYNTAX_THEME = "monokai"


def _code(text: str, lexer: str) -> RenderableType:
    return Syntax(text.rstrip("\n"), lexer, theme=SYNTAX_THEME, line_numbers=True, word_wrap=False)


def _pane_body(text: str, note: str, lexer: str = "python") -> RenderableType:
    if not text:
        return Text(note or "(empty)", style="italic")
    return _code(text, lexer)


class CodeView(Widget):
    """Golden vs candidate: two panes (``side``) or one unified diff (``diff``)."""

    mode: reactive[str] = reactive("side")

    def compose(self) -> ComposeResult:
        with ContentSwitcher(initial="side", id="code-switcher"):
            with Horizontal(id="side"):
                with VerticalScroll(id="golden-pane", classes="code-pane"):
                    yield Static("", id="golden-note", classes="note")
                    yield Static("Loading…", id="golden-code")
                with VerticalScroll(id="candidate-pane", classes="code-pane"):
                    yield Static("", id="candidate-note", classes="note")
                    yield Static("Loading…", id="candidate-code")
            with VerticalScroll(id="diff", classes="code-pane"):
                yield Static("Loading…", id="diff-code")

    def on_mount(self) -> None:
        self.query_one("#golden-pane").border_title = "golden"
        self.query_one("#candidate-pane").border_title = "candidate"
        self.query_one("#diff").border_title = "diff: golden → candidate"

    def watch_mode(self, mode: str) -> None:
        self.query_one(ContentSwitcher).current = mode

    def toggle_mode(self) -> None:
        self.mode = "diff" if self.mode == "side" else "side"

    def show_loading(self) -> None:
        for widget_id in ("#golden-code", "#candidate-code", "#diff-code"):
            self.query_one(widget_id, Static).update("Loading…")
        for widget_id in ("#golden-note", "#candidate-note"):
            self._set_note(widget_id, "")

    def show_error(self, message: str) -> None:
        for widget_id in ("#golden-code", "#candidate-code", "#diff-code"):
            self.query_one(widget_id, Static).update(Text(message, style="italic"))

    def show(self, content: ItemContent) -> None:
        """Draw ``content`` in both modes (switching mode is then instant)."""
        self._set_note("#golden-note", content.golden_note)
        self._set_note("#candidate-note", content.candidate_note)
        self.query_one("#golden-code", Static).update(
            _pane_body(content.golden, content.golden_note)
        )
        self.query_one("#candidate-code", Static).update(
            _pane_body(content.candidate, content.candidate_note)
        )
        diff = content.diff()
        if diff:
            body: RenderableType = _code(diff, "diff")
        elif content.golden:
            body = Text("No differences: the candidate's function is the golden one.")
        else:
            body = Text(content.golden_note or "Nothing to compare.", style="italic")
        self.query_one("#diff-code", Static).update(body)
        for pane in self.query(".code-pane"):
            pane.scroll_home(animate=False)

    def _set_note(self, widget_id: str, note: str) -> None:
        widget = self.query_one(widget_id, Static)
        widget.update(note)
        widget.display = bool(note)
