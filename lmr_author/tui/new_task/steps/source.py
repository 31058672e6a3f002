"""Step 1: the repository, a local folder or a git URL at a branch, tag or commit."""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Button, Input, Label, Static

from lmr_author.authoring.source import SourceCheckout, resolve_source
from lmr_author.errors import UserError
from lmr_author.tui.new_task.steps.base import StepScreen


class SourceStep(StepScreen):
    STEP_NUMBER = 1
    HELP: ClassVar[str] = (
        "A local repository folder, or a git URL with a branch, tag or commit. "
        "A URL is cloned into your cache; the commit goes into info.json."
    )

    class Resolved(Message):
        """The checked-out repository (or why it could not be checked out)."""

        def __init__(self, checkout: SourceCheckout | None, error: str = "") -> None:
            super().__init__()
            self.checkout = checkout
            self.error = error

    def compose_step(self) -> ComposeResult:
        yield Label("Repository (folder or git URL)")
        yield Input(self.spec.source, placeholder="path/to/repo or https://…/repo.git", id="source")
        yield Label("Branch, tag or commit (optional)")
        yield Input(self.spec.ref, placeholder="main, v1.0, 3f2a9c1…", id="ref")
        yield Button("Check out", id="checkout", variant="success")
        yield Static(self._describe(), id="source-info")

    def _describe(self) -> str:
        if not self.spec.repo_path:
            return "Not checked out yet."
        commit = self.spec.repo_commit[:12] or "(not a git repository)"
        url = self.spec.repo_url or "(no remote)"
        return f"Working tree: {self.spec.repo_path}\nCommit: {commit}\nURL: {url}"

    @on(Input.Changed, "#source")
    def _source_changed(self, event: Input.Changed) -> None:
        if event.value != self.spec.source:
            self.spec.source = event.value
            self.spec.repo_path = ""
            self.changed()

    @on(Input.Changed, "#ref")
    def _ref_changed(self, event: Input.Changed) -> None:
        if event.value != self.spec.ref:
            self.spec.ref = event.value
            self.spec.repo_path = ""
            self.changed()

    @on(Button.Pressed, "#checkout")
    @on(Input.Submitted)
    def _checkout(self) -> None:
        self.set_status("checking out…")
        self.query_one("#checkout", Button).disabled = True
        self._resolve(self.spec.source, self.spec.ref)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _resolve(self, source: str, ref: str) -> None:
        try:
            checkout = resolve_source(source, ref)
        except UserError as error:
            self.post_message(self.Resolved(None, str(error)))
            return
        self.post_message(self.Resolved(checkout))

    @on(Resolved)
    def _done(self, message: Resolved) -> None:
        checkout = message.checkout
        if checkout is None:
            self.query_one("#checkout", Button).disabled = False
            self.set_status(message.error, error=True)
            return
        self.spec.repo_path = str(checkout.path)
        self.spec.repo_commit = checkout.commit
        self.spec.repo_url = checkout.url
        self.spec.repo_folder_name = self.spec.repo_folder(checkout.path)
        self.changed()
        self.query_one("#checkout", Button).disabled = False
        self.query_one("#source-info", Static).update(self._describe())
        self.set_status("checked out ✓")

    def can_leave(self) -> str | None:
        if not self.spec.repo_path:
            return "Check out the repository first."
        return None
