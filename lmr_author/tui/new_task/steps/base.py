"""What every step screen shares: a title with progress, Back / Next, a status line."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Static

from lmr_author.authoring.spec import TaskSpec

if TYPE_CHECKING:
    from lmr_author.tui.new_task.app import NewTaskApp

STEP_TITLES = (
    "Source",
    "Paper",
    "Goal function",
    "Mask",
    "Instruction",
    "Tests & environment",
    "Check",
    "Save",
)


class StepScreen(Screen[None]):
    """A step of the flow; subclasses fill `compose_step` and `can_leave`."""

    STEP_NUMBER: ClassVar[int] = 1
    HELP: ClassVar[str] = ""

    @property
    def authoring(self) -> NewTaskApp:
        return cast("NewTaskApp", self.app)

    @property
    def spec(self) -> TaskSpec:
        return self.authoring.spec

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="step"):
            title = STEP_TITLES[self.STEP_NUMBER - 1]
            yield Static(
                f"Step {self.STEP_NUMBER} of {len(STEP_TITLES)} · [b]{title}[/b]", id="step-title"
            )
            if self.HELP:
                yield Static(self.HELP, id="step-help")
            with Vertical(id="step-body"):
                yield from self.compose_step()
            with Horizontal(id="nav"):
                yield Button("◀ Back", id="back", disabled=self.STEP_NUMBER == 1)
                yield Static("", id="status")
                yield Button(
                    "Next ▶",
                    id="next",
                    variant="primary",
                    disabled=len(STEP_TITLES) == self.STEP_NUMBER,
                )
        yield Footer()

    def compose_step(self) -> ComposeResult:
        yield from ()

    def can_leave(self) -> str | None:
        """Why the annotator cannot go on yet, or None."""
        return None

    def set_status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#status", Static)
        status.set_class(error, "error")
        status.update(text)

    def changed(self) -> None:
        """Call after writing to the draft: saves it at once."""
        self.authoring.autosave()

    @on(Button.Pressed, "#next")
    def _next(self) -> None:
        self.authoring.action_next_step()

    @on(Button.Pressed, "#back")
    def _back(self) -> None:
        self.authoring.action_previous_step()
