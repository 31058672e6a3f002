"""Step 2: the paper in any form (PDF, LaTeX, Markdown, paper.json), converted to page
texts, with a searchable preview; or left for later. The repository's own paper is
found by its content (`lmr_author.authoring.paper_locate`) and loaded on arrival; when
several files hold a paper they are listed, and Enter on one loads it instead."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, Label, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from lmr_author.tui.new_task.steps._lists import WrappedOptionList
from lmr_author.tui.new_task.steps._wrapped_field import WrappedField
from lmr_author.tui.new_task.steps.base import StepScreen
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    from lmr_author.authoring.paper_locate import PaperCandidate


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
            self,
            source: str,
            pages: dict[str, str],
            title: str = "",
            error: str = "",
            form: str = "",
        ) -> None:
            super().__init__()
            self.source = source  # the path given: a later load's result replaces this one
            self.pages = pages
            self.title = title  # the paper's own title (source, metadata or page 1)
            self.error = error
            self.form = form

    class Found(Message):
        """The files of the repository that hold a paper, best first."""

        def __init__(self, candidates: list[PaperCandidate]) -> None:
            super().__init__()
            self.candidates = candidates

    def __init__(self) -> None:
        super().__init__()
        self._candidates: list[PaperCandidate] = []
        #: The title this step filled in from a paper (replaced when another is loaded,
        #: unless the annotator edited it).
        self._filled_title = ""

    def compose_step(self) -> ComposeResult:
        yield Label("Paper (PDF, .tex or LaTeX folder/tarball, .md, paper.json)")
        with Horizontal(classes="row"):
            yield Input(self.spec.paper_pdf, placeholder="path/to/paper", id="pdf")
            yield Button("Give it later", id="later", compact=True)
        # Shown when the repository holds more than one paper: the choice is the annotator's.
        yield Label("Papers in the repository (↑/↓, Enter loads one)", id="found-label")
        yield WrappedOptionList(id="found")
        yield Label("Title")
        yield WrappedField(self.spec.paper_name, id="paper-name")
        yield Input(placeholder="search the paper…", id="search")
        with VerticalScroll(id="paper-preview"):
            yield Static("No paper loaded.", id="paper-text", markup=False)

    def on_mount(self) -> None:
        self.query_one("#found-label", Label).display = False
        self.query_one("#found", OptionList).display = False
        repo = Path(self.spec.repo_path) if self.spec.repo_path else None
        if repo is not None and repo.is_dir():
            if not self.spec.paper_pdf and not self.spec.paper_later:
                self.set_status("looking for the paper in the repository…")
            self._look(repo)
        if self.spec.paper_pdf and not self.authoring.paper_pages:
            self._load(self.spec.paper_pdf)
        elif self.authoring.paper_pages:
            self._show_pages("")
        elif self.spec.paper_later:
            self.set_status("paper left for later (give it here whenever you have it)")

    @work(thread=True, exclusive=True, group="look", exit_on_error=False)
    def _look(self, repo: Path) -> None:
        # PDFs are opened to read their first page: never on the UI thread.
        from lmr_author.authoring.paper_locate import find_papers

        try:
            found = find_papers(repo)
        except OSError:
            found = []
        self.post_message(self.Found(found))

    @on(Found)
    def _found(self, message: Found) -> None:
        self._candidates = message.candidates
        self._show_candidates()
        if self.spec.paper_pdf or self.spec.paper_later:
            return
        if not message.candidates:
            from lmr_author.authoring.paper_locate import WHERE_LOOKED

            self.query_one("#paper-text", Static).update(
                f"No paper found in the repository: looked at {WHERE_LOOKED}.\n\n"
                "Type the paper's path above and press Enter (or ctrl+r), or press "
                "'Give it later'."
            )
            self.set_status("no paper found in the repository: give its path above, or later")
            return
        # The best is loaded at once; the others are listed to load instead.
        self._use(str(message.candidates[0].path))

    def _show_candidates(self) -> None:
        listing = self.query_one("#found", OptionList)
        listing.clear_options()
        repo = Path(self.spec.repo_path)
        for candidate in self._candidates:
            listing.add_option(Option(candidate.describe(repo), id=str(candidate.path)))
        several = len(self._candidates) > 1
        listing.display = several
        self.query_one("#found-label", Label).display = several
        self._highlight_loaded()

    def _highlight_loaded(self) -> None:
        """The list's highlight on the paper given, so ↓ moves to the next one."""
        paths = [str(c.path) for c in self._candidates]
        if self.spec.paper_pdf in paths:
            self.query_one("#found", OptionList).highlighted = paths.index(self.spec.paper_pdf)

    @on(OptionList.OptionSelected, "#found")
    def _candidate_picked(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self._use(event.option.id)

    def _use(self, path: str) -> None:
        """Load ``path`` as the draft's paper (typed into the path field too)."""
        self.query_one("#pdf", Input).value = path  # Changed resets the loaded pages
        self.spec.paper_pdf = path
        self.spec.paper_later = False
        self.authoring.paper_pages = {}
        self.changed()
        self._highlight_loaded()
        self._load(path)

    @on(Input.Changed, "#pdf")
    def _pdf_changed(self, event: Input.Changed) -> None:
        if event.value != self.spec.paper_pdf:
            self.spec.paper_pdf = event.value
            self.spec.paper_later = False
            self.authoring.paper_pages = {}
            self.changed()

    @on(TextArea.Changed, "#paper-name")
    def _name_changed(self, event: TextArea.Changed) -> None:
        value = event.text_area.text
        if value != self.spec.paper_name:
            self.spec.paper_name = value
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
            self.post_message(self.Converted(pdf, {}, error=str(error)))
            return
        self.post_message(self.Converted(pdf, paper.pages, paper.title, form=paper.form))

    @on(Converted)
    def _loaded(self, message: Converted) -> None:
        if message.source != self.spec.paper_pdf:
            return  # another paper was given since
        if message.error:
            self.set_status(message.error, error=True)
            return
        pages = message.pages
        self.authoring.paper_pages = pages
        untouched = not self.spec.paper_name or self.spec.paper_name == self._filled_title
        if untouched and message.title and message.title != self.spec.paper_name:
            self.spec.paper_name = self._filled_title = message.title
            self.query_one("#paper-name", TextArea).load_text(message.title)
            self.changed()
            self.refresh_title()
        self.spec.paper_later = False
        name = Path(message.source).name
        others = len(self._candidates) - 1
        more = f"; {others} other paper(s) listed above" if others > 0 else ""
        form = "" if message.form == name else f"{message.form}, "
        self.set_status(f"loaded {name} ({form}{len(pages)} page(s)) ✓{more}")
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
