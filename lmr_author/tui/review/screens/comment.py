"""A modal dialog to type the comment of one review item."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label


class CommentScreen(ModalScreen[str | None]):
    """Ask for a comment; dismiss with the text (Enter / Save) or None (Escape / Cancel)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, item_title: str, initial: str = "") -> None:
        super().__init__()
        self.item_title = item_title
        self.initial = initial

    def compose(self) -> ComposeResult:
        with Vertical(id="comment-dialog"):
            yield Label(f"Comment on {self.item_title}", id="comment-title")
            yield Input(value=self.initial, placeholder="Why this label?", id="comment-input")
            with Horizontal(id="comment-buttons"):
                yield Button("Save", variant="primary", id="comment-save")
                yield Button("Cancel", id="comment-cancel")

    @on(Input.Submitted, "#comment-input")
    @on(Button.Pressed, "#comment-save")
    def save(self) -> None:
        self.dismiss(self.query_one("#comment-input", Input).value)

    @on(Button.Pressed, "#comment-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
