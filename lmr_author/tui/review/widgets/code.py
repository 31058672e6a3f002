"""The golden function and the candidate, side by side or as a unified diff.

Highlighting is Rich's Pygments-based `Syntax`, which needs no extra parser packages and
renders the same on every machine (so snapshots are stable). Long lines wrap by default
(nothing is cut at a pane's edge); with wrapping off, a pane scrolls sideways. The split
between the two panes moves in steps, down to one pane taking the whole width, which is
what makes 80 columns readable.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, ScrollableContainer
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static

from lmr_author.review.content import ItemContent

SYNTAX_THEME = "monokai"
#: The golden pane's share of the width (percent), in the steps `[` and `]` move through;
#: 0 shows only the candidate, 100 only the golden function.
SPLITS = (0, 25, 35, 50, 65, 75, 100)


def _code(text: str, lexer: str, wrap: bool) -> RenderableType:
    return Syntax(text.rstrip("\n"), lexer, theme=SYNTAX_THEME, line_numbers=True, word_wrap=wrap)


def _pane_body(text: str, note: str, wrap: bool, lexer: str = "python") -> RenderableType:
    if not text:
        return Text(note or "(empty)", style="italic")
    return _code(text, lexer, wrap)


class CodeView(Widget):
    """Golden vs candidate: two panes (``side``) or one unified diff (``diff``)."""

    mode: reactive[str] = reactive("side")
    wrap: reactive[bool] = reactive(True, init=False)
    split: reactive[int] = reactive(50, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._content: ItemContent | None = None

    def compose(self) -> ComposeResult:
        with ContentSwitcher(initial="side", id="code-switcher"):
            with Horizontal(id="side"):
                with ScrollableContainer(id="golden-pane", classes="code-pane"):
                    yield Static("", id="golden-note", classes="note")
                    yield Static("Loading…", id="golden-code", classes="code-body")
                with ScrollableContainer(id="candidate-pane", classes="code-pane"):
                    yield Static("", id="candidate-note", classes="note")
                    yield Static("Loading…", id="candidate-code", classes="code-body")
            with ScrollableContainer(id="diff", classes="code-pane"):
                yield Static("Loading…", id="diff-code", classes="code-body")

    def on_mount(self) -> None:
        self.query_one("#diff").border_title = "diff: golden → candidate"
        self._show_split()

    def watch_mode(self, mode: str) -> None:
        self.query_one(ContentSwitcher).current = mode

    def toggle_mode(self) -> None:
        self.mode = "diff" if self.mode == "side" else "side"

    def toggle_wrap(self) -> None:
        self.wrap = not self.wrap

    def watch_wrap(self, wrap: bool) -> None:
        self.set_class(not wrap, "-nowrap")
        if self._content is not None:
            self.show(self._content)

    def widen_golden(self, step: int) -> None:
        """Move the split ``step`` steps (positive: the golden pane gets wider)."""
        position = min(range(len(SPLITS)), key=lambda i: abs(SPLITS[i] - self.split))
        self.split = SPLITS[max(0, min(len(SPLITS) - 1, position + step))]

    def watch_split(self) -> None:
        self._show_split()

    def _show_split(self) -> None:
        golden = self.query_one("#golden-pane")
        candidate = self.query_one("#candidate-pane")
        golden.display = self.split > 0
        candidate.display = self.split < 100
        golden.styles.width = f"{max(self.split, 1)}fr"
        candidate.styles.width = f"{max(100 - self.split, 1)}fr"
        shares = "" if self.split == 50 else f" {self.split}%"
        golden.border_title = f"golden{shares}"
        candidate.border_title = "candidate" + ("" if self.split == 50 else f" {100 - self.split}%")

    def show_loading(self) -> None:
        self._content = None
        for widget_id in ("#golden-code", "#candidate-code", "#diff-code"):
            self.query_one(widget_id, Static).update("Loading…")
        for widget_id in ("#golden-note", "#candidate-note"):
            self._set_note(widget_id, "")

    def show_error(self, message: str) -> None:
        for widget_id in ("#golden-code", "#candidate-code", "#diff-code"):
            self.query_one(widget_id, Static).update(Text(message, style="italic"))

    def show(self, content: ItemContent) -> None:
        """Draw ``content`` in both modes (switching mode is then instant)."""
        new_item = self._content is not content
        self._content = content
        wrap = self.wrap
        self._set_note("#golden-note", content.golden_note)
        self._set_note("#candidate-note", content.candidate_note)
        self.query_one("#golden-code", Static).update(
            _pane_body(content.golden, content.golden_note, wrap)
        )
        self.query_one("#candidate-code", Static).update(
            _pane_body(content.candidate, content.candidate_note, wrap)
        )
        diff = content.diff()
        if diff:
            body: RenderableType = _code(diff, "diff", wrap)
        elif content.golden:
            body = Text("No differences: the candidate's function is the golden one.")
        else:
            body = Text(content.golden_note or "Nothing to compare.", style="italic")
        self.query_one("#diff-code", Static).update(body)
        if new_item:
            for pane in self.query(".code-pane"):
                pane.scroll_home(animate=False)

    def _set_note(self, widget_id: str, note: str) -> None:
        widget = self.query_one(widget_id, Static)
        widget.update(note)
        widget.display = bool(note)
