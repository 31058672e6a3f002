"""A modal that picks one of the repository's Python files (for the retrieval context)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.fuzzy import Matcher
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from lmr_author.tui.new_task.steps._lists import WrappedOptionList


class FilePicker(ModalScreen[str | None]):
    """Type to narrow the repository's files; Enter picks the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    class Listed(Message):
        """The repository's Python files (listed off the UI thread)."""

        def __init__(self, files: list[str]) -> None:
            super().__init__()
            self.files = files

    def __init__(self, repo: Path, *, exclude: set[str]) -> None:
        super().__init__()
        self.repo = repo
        self.exclude = exclude
        self.files: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="file-picker"):
            yield Static("Add a file to the retrieval context (esc: cancel)", id="picker-title")
            yield Input(placeholder="search files…", id="file-search")
            yield WrappedOptionList(id="files")
            yield Static("listing files…", id="files-empty", markup=False)

    def on_mount(self) -> None:
        self._list()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _list(self) -> None:
        from lmr_author.cst.repository import python_files

        self.post_message(self.Listed(python_files(self.repo)))

    @on(Listed)
    def _listed(self, message: Listed) -> None:
        self.files = [f for f in message.files if f not in self.exclude]
        self._refresh()

    @on(Input.Changed, "#file-search")
    def _refresh(self) -> None:
        query = self.query_one("#file-search", Input).value.strip()
        matcher = Matcher(query) if query else None
        scored = [(matcher.match(f) if matcher else 1.0, f) for f in self.files]
        shown = [f for score, f in sorted(scored, key=lambda item: -item[0]) if score > 0]
        files = self.query_one("#files", OptionList)
        files.clear_options()
        files.add_options([Option(f, id=f) for f in shown[:500]])
        if shown:
            files.highlighted = 0
        empty = self.query_one("#files-empty", Static)
        empty.display = not shown
        empty.update(f"no file matches '{query}'" if query else "no other Python file")

    def on_key(self, event: object) -> None:
        from textual.events import Key

        if isinstance(event, Key) and event.key in ("up", "down"):
            files = self.query_one("#files", OptionList)
            files.action_cursor_down() if event.key == "down" else files.action_cursor_up()
            event.stop()

    @on(Input.Submitted, "#file-search")
    def _submitted(self) -> None:
        files = self.query_one("#files", OptionList)
        if files.highlighted is not None:
            option = files.get_option_at_index(files.highlighted)
            self.dismiss(option.id)

    @on(OptionList.OptionSelected, "#files")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
