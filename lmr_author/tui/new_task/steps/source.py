"""Step 1: the repository, a local folder or a git URL at a branch, tag or commit."""

from __future__ import annotations

import copy
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Button, Input, Label, Static

from lmr_author.authoring.drafts import apply_checkout
from lmr_author.authoring.spec import TaskSpec
from lmr_author.tui.new_task.steps.base import StepScreen
from lmr_author.util.errors import UserError

#: What a checkout decides in the draft (`lmr_author.authoring.drafts.apply_checkout`).
_CHECKOUT_FIELDS = (
    "source",
    "ref",
    "repo_path",
    "repo_url",
    "repo_commit",
    "repo_folder_name",
    "requirements",
    "dockerfile",
)


class SourceStep(StepScreen):
    STEP_NUMBER = 1
    PRIMARY = ("checkout", "Check out")
    HELP: ClassVar[str] = (
        "A local repository folder, or a git URL with a branch, tag or commit. "
        "A URL is cloned into your cache; the commit goes into info.json."
    )

    class Resolved(Message):
        """The draft with the repository checked out (or why it could not be)."""

        def __init__(self, checked_out: TaskSpec | None, error: str = "") -> None:
            super().__init__()
            self.checked_out = checked_out
            self.error = error

    def __init__(self) -> None:
        super().__init__()
        # The source and ref the draft's repository fields belong to: typing in the box
        # changes spec.source before the checkout, so the library is told the old one.
        self._checked_out_source = (
            (self.spec.source, self.spec.ref) if self.spec.repo_path else ("", "")
        )

    def compose_step(self) -> ComposeResult:
        yield Label("Repository (folder or git URL)")
        yield Input(self.spec.source, placeholder="path/to/repo or https://…/repo.git", id="source")
        yield Label("Branch, tag or commit (optional)")
        yield Input(self.spec.ref, placeholder="main, v1.0, 3f2a9c1…", id="ref")
        yield Static(self._describe(), id="source-info", markup=False)

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
        draft = copy.deepcopy(self.spec)
        source, ref = draft.source, draft.ref
        draft.source, draft.ref = self._checked_out_source
        self._resolve(draft, source, ref)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _resolve(self, draft: TaskSpec, source: str, ref: str) -> None:
        # The library decides what a new checkout resets (another source's folder name,
        # commit, environment); it works on a copy so the UI thread owns the draft.
        try:
            apply_checkout(draft, source, ref)
        except UserError as error:
            self.post_message(self.Resolved(None, str(error)))
            return
        self.post_message(self.Resolved(draft))

    @on(Resolved)
    def _done(self, message: Resolved) -> None:
        draft = message.checked_out
        if draft is None:
            self.query_one("#checkout", Button).disabled = False
            self.set_status(message.error, error=True)
            return
        for name in _CHECKOUT_FIELDS:
            setattr(self.spec, name, getattr(draft, name))
        self._checked_out_source = (draft.source, draft.ref)
        self.changed()
        self.query_one("#checkout", Button).disabled = False
        self.query_one("#source-info", Static).update(self._describe())
        self.set_status("checked out ✓")

    def can_leave(self) -> str | None:
        if not self.spec.repo_path:
            return "Check out the repository first."
        return None
