"""Step 2: the paper in any form (PDF, LaTeX, Markdown, paper.json), converted to page
texts, with a searchable preview; or left for later."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, Label, Static

from lmr_author.tui.new_task.steps.base import StepScreen
from lmr_author.util.errors import UserError


class PaperStep(StepScreen):
    STEP_NUMBER = 2
    PRIMARY = ("load", "Load")
    HELP: ClassVar[str] = (
        "The paper: a PDF, LaTeX (.tex, source folder or tarball), Markdown or paper.json. "
        "It becomes paper.pdf and paper.json (page → text) in the repository."
    )

    class Converted(Message):
        """The paper's page texts (or why the PDF could not be read)."""

        def __init__(
            self, pages: dict[str, str], title: str = "", error: str = "", form: str = ""
        ) -> None:
            super().__init__()
            self.pages = pages
            self.title = title  # the paper's own title (source, metadata or page 1)
            self.error = error
            self.form = form

    def compose_step(self) -> ComposeResult:
        yield Label("Paper (PDF, .tex or LaTeX folder/tarball, .md, paper.json)")
        with Horizontal(classes="row"):
            yield Input(self.spec.paper_pdf, placeholder="path/to/paper", id="pdf")
            yield Button("Give it later", id="later", compact=True)
        yield Label("Title")
        yield Input(self.spec.paper_name, placeholder="the paper's title", id="paper-name")
        yield Input(placeholder="search the paper…", id="search")
        with VerticalScroll(id="paper-preview"):
            yield Static("No paper loaded.", id="paper-text")

    def on_mount(self) -> None:
        found = self._paper_in_repository()
        if not self.spec.paper_pdf and not self.spec.paper_later and found is not None:
            # The repository carries its paper (a published task's paper.json, a
            # paper.pdf or its LaTeX source): loaded at once, another can replace it.
            self.query_one("#pdf", Input).value = str(found)
            self.spec.paper_pdf = str(found)
            self.changed()
            self._load(str(found))
            return
        if self.spec.paper_pdf and not self.authoring.paper_pages:
            self._load(self.spec.paper_pdf)
        elif self.authoring.paper_pages:
            self._show_pages("")
        elif self.spec.paper_later:
            self.set_status("paper left for later (give it here whenever you have it)")

    @on(Input.Changed, "#pdf")
    def _pdf_changed(self, event: Input.Changed) -> None:
        if event.value != self.spec.paper_pdf:
            self.spec.paper_pdf = event.value
            self.spec.paper_later = False
            self.authoring.paper_pages = {}
            self.changed()

    def _paper_in_repository(self) -> Path | None:
        from lmr_author.authoring.paper_locate import find_paper

        repo = Path(self.spec.repo_path) if self.spec.repo_path else None
        if repo is None or not repo.is_dir():
            return None
        return find_paper(repo)

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

    @on(Button.Pressed, "#later")
    def _later(self) -> None:
        self.spec.paper_pdf = ""
        self.spec.paper_later = True
        self.authoring.paper_pages = {}
        self.query_one("#pdf", Input).value = ""
        self.changed()
        self._show_pages("")
        self.set_status(
            "paper left for later: the task is saved without one and 'validate' says so "
            "until 'lmr-author paper TASK PAPER' adds it"
        )

    def _load(self, pdf: str) -> None:
        if not pdf.strip():
            self.set_status("Give the paper's path, or press 'Give it later'.", error=True)
            return
        self.set_status("reading the paper…")
        self._convert(pdf)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _convert(self, pdf: str) -> None:
        from lmr_author.authoring.paper_forms import read_paper

        try:
            paper = read_paper(pdf)
        except UserError as error:
            self.post_message(self.Converted({}, error=str(error)))
            return
        self.post_message(self.Converted(paper.pages, paper.title, form=paper.form))

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
        self.spec.paper_later = False
        self.set_status(f"{message.form}: {len(pages)} page(s) ✓")
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
        empty = "Paper left for later." if self.spec.paper_later else "No paper loaded."
        self.query_one("#paper-text", Static).update(text if pages else empty)

    def can_leave(self) -> str | None:
        if not self.authoring.paper_pages and not self.spec.paper_later:
            return "Load the paper, or press 'Give it later'."
        return None
