"""Step 2: the paper PDF, converted to page texts, with a searchable preview."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, Label, Static

from lmr_author.errors import UserError
from lmr_author.tui.new_task.steps.base import StepScreen


class PaperStep(StepScreen):
    STEP_NUMBER = 2
    HELP: ClassVar[str] = (
        "The paper as a PDF. It is copied into the repository as paper.pdf and its text "
        "saved as paper.json (page number → text)."
    )

    class Converted(Message):
        """The paper's page texts (or why the PDF could not be read)."""

        def __init__(self, pages: dict[str, str], title: str = "", error: str = "") -> None:
            super().__init__()
            self.pages = pages
            self.title = title  # guessed from the PDF's metadata, else page 1's fonts
            self.error = error

    def compose_step(self) -> ComposeResult:
        yield Label("Paper PDF")
        with Horizontal(classes="row"):
            yield Input(self.spec.paper_pdf, placeholder="path/to/paper.pdf", id="pdf")
            yield Button("Load", id="load", variant="success")
        yield Label("Title")
        yield Input(self.spec.paper_name, placeholder="the paper's title", id="paper-name")
        yield Input(placeholder="search the paper…", id="search")
        with VerticalScroll(id="paper-preview"):
            yield Static("No paper loaded.", id="paper-text")

    def on_mount(self) -> None:
        if self.spec.paper_pdf and not self.authoring.paper_pages:
            self._load(self.spec.paper_pdf)
        elif self.authoring.paper_pages:
            self._show_pages("")

    @on(Input.Changed, "#pdf")
    def _pdf_changed(self, event: Input.Changed) -> None:
        if event.value != self.spec.paper_pdf:
            self.spec.paper_pdf = event.value
            self.authoring.paper_pages = {}
            self.changed()

    @on(Input.Changed, "#paper-name")
    def _name_changed(self, event: Input.Changed) -> None:
        if event.value != self.spec.paper_name:
            self.spec.paper_name = event.value
            self.changed()
            self.refresh_title()

    @on(Input.Changed, "#search")
    def _search(self, event: Input.Changed) -> None:
        self._show_pages(event.value)

    @on(Button.Pressed, "#load")
    @on(Input.Submitted, "#pdf")
    def _load_pressed(self) -> None:
        self._load(self.spec.paper_pdf)

    def _load(self, pdf: str) -> None:
        self.set_status("reading the PDF…")
        self._convert(pdf)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _convert(self, pdf: str) -> None:
        from lmr_author.authoring.paper_title import guess_paper_title
        from lmr_author.paper import pdf_to_pages

        path = Path(pdf).expanduser()
        try:
            pages = pdf_to_pages(path)
            title = guess_paper_title(path)
        except UserError as error:
            self.post_message(self.Converted({}, error=str(error)))
            return
        self.post_message(self.Converted(pages, title))

    @on(Converted)
    def _loaded(self, message: Converted) -> None:
        if message.error:
            self.set_status(message.error, error=True)
            return
        pages = message.pages
        self.authoring.paper_pages = pages
        if not self.spec.paper_name and message.title:
            self.spec.paper_name = message.title
            self.query_one("#paper-name", Input).value = message.title
            self.changed()
            self.refresh_title()
        self.set_status(f"{len(pages)} page(s) ✓")
        self._show_pages(self.query_one("#search", Input).value)

    def _show_pages(self, query: str) -> None:
        pages = self.authoring.paper_pages
        text = Text()
        shown = 0
        for number, page in pages.items():
            if query and query.lower() not in page.lower():
                continue
            shown += 1
            text.append(f"— page {number} —\n", style="bold")
            body = Text(page.strip() + "\n\n")
            if query:
                body.highlight_words([query], style="reverse", case_sensitive=False)
            text.append_text(body)
        if query:
            self.set_status(f"'{query}' on {shown} of {len(pages)} page(s)")
        self.query_one("#paper-text", Static).update(text if pages else "No paper loaded.")

    def can_leave(self) -> str | None:
        if not self.authoring.paper_pages:
            return "Load the paper PDF first."
        return None
