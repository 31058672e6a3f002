"""A modal dialog to type the comment of one review item, kept as a draft as it is typed.

Every few characters (and when typing pauses, and when the dialog closes) the text goes
to the label store through `lmr_author.review.drafts.DraftKeeper`, so a crash or a kill
while typing loses at most the last keystrokes. Cancel puts the comment back as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Input, Label

from lmr_author.review.drafts import DraftKeeper

#: Seconds without a keystroke after which the draft is written.
PAUSE = 0.5


class CommentScreen(ModalScreen[str | None]):
    """Ask for a comment; dismiss with the text (Enter / Save) or None (Escape / Cancel)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        item_title: str,
        initial: str = "",
        keep_draft: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__()
        self.item_title = item_title
        self.initial = initial
        self._keeper = DraftKeeper(keep_draft or (lambda _text: None), initial)
        self._pause: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="comment-dialog"):
            yield Label(f"Comment on {self.item_title}", id="comment-title")
            yield Input(value=self.initial, placeholder="Why this label?", id="comment-input")
            yield Label(
                "Kept as a draft while you type; stored with your label.", id="comment-help"
            )
            with Horizontal(id="comment-buttons"):
                yield Button("Save", variant="primary", id="comment-save", compact=True)
                yield Button("Cancel", id="comment-cancel", compact=True)

    @on(Input.Changed, "#comment-input")
    def _typed(self, event: Input.Changed) -> None:
        self._keeper.typed(event.value)
        if self._pause is not None:
            self._pause.stop()
        self._pause = self.set_timer(PAUSE, self._keeper.flush)

    @on(Input.Submitted, "#comment-input")
    @on(Button.Pressed, "#comment-save")
    def save(self) -> None:
        self._keeper.typed(self.query_one("#comment-input", Input).value)
        self._keeper.flush()
        self.dismiss(self._keeper.text)

    @on(Button.Pressed, "#comment-cancel")
    def action_cancel(self) -> None:
        self._keeper.typed(self.initial)
        self._keeper.flush()
        self.dismiss(None)

    def on_unmount(self) -> None:
        if self._pause is not None:
            self._pause.stop()
        self._keeper.flush()
