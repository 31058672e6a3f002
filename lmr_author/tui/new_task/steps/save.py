"""Step 8: write the task folder (atomically; replacing a task only when confirmed)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Grid
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from lmr_author.authoring.build import build_task
from lmr_author.errors import UserError
from lmr_author.task import Task
from lmr_author.tui.new_task.steps.base import StepScreen


class ConfirmReplace(ModalScreen[bool]):
    """Asks before an existing task folder is replaced."""

    BINDINGS: ClassVar = [("y", "answer(True)", "Replace"), ("n,escape", "answer(False)", "Keep")]

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        with Grid(id="confirm"):
            yield Label(f"{self.path} exists already. Replace it?", id="confirm-question")
            yield Button("Replace (y)", variant="error", id="yes")
            yield Button("Keep it (n)", variant="primary", id="no")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class SaveStep(StepScreen):
    STEP_NUMBER = 9
    HELP: ClassVar[str] = "Write the task folder into the benchmark."

    class Looked(Message):
        """Whether the task folder exists already (looked up off the UI thread)."""

        def __init__(self, target: Path, exists: bool) -> None:
            super().__init__()
            self.target = target
            self.exists = exists

    class Progress(Message):
        """A step of the build started."""

        def __init__(self, step: str) -> None:
            super().__init__()
            self.step = step

    class Done(Message):
        """The task was written (``task``), or why not (``error``)."""

        def __init__(self, task: Task | None, error: str = "") -> None:
            super().__init__()
            self.task = task
            self.error = error

    def compose_step(self) -> ComposeResult:
        yield Label("Benchmark folder")
        yield Input(str(self.authoring.benchmark_dir), id="into")
        yield Static(self._target_text(), id="target")
        yield Button("Save task", id="save", variant="primary")
        yield Static("", id="saved")

    def _target(self) -> Path:
        return Path(self.query_one("#into", Input).value) / self.spec.folder_name

    def _target_text(self) -> str:
        return f"Will write: {self.authoring.benchmark_dir / self.spec.folder_name}"

    @on(Input.Changed, "#into")
    def _into_changed(self, event: Input.Changed) -> None:
        self.authoring.benchmark_dir = Path(event.value)
        if self.spec.benchmark_dir != event.value:
            self.spec.benchmark_dir = event.value  # persists in the draft
            self.changed()
        self.query_one("#target", Static).update(self._target_text())

    @on(Button.Pressed, "#save")
    def _save_pressed(self) -> None:
        self.query_one("#save", Button).disabled = True
        self._look(self._target())

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _look(self, target: Path) -> None:
        self.post_message(self.Looked(target, target.exists()))

    @on(Looked)
    def _looked(self, message: Looked) -> None:
        if message.exists:
            self.app.push_screen(ConfirmReplace(message.target), self._confirmed)
        else:
            self._save(False)

    def _confirmed(self, replace: bool | None) -> None:
        if replace:
            self._save(True)
        else:
            self.query_one("#save", Button).disabled = False
            self.set_status("kept the existing task; nothing written")

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _save(self, overwrite: bool) -> None:
        def step(message: str) -> None:
            self.post_message(self.Progress(message))

        try:
            task = build_task(
                self.spec, self.authoring.benchmark_dir, overwrite=overwrite, on_step=step
            )
        except UserError as error:
            self.post_message(self.Done(None, str(error)))
            return
        self.post_message(self.Done(task))

    @on(Progress)
    def _progress(self, message: Progress) -> None:
        self.set_status(message.step + "…")

    @on(Done)
    def _done(self, message: Done) -> None:
        task = message.task
        if task is None:
            self.query_one("#save", Button).disabled = False
            self.set_status(message.error, error=True)
            return
        self.spec.step = "save"
        self.changed()
        self.query_one("#saved", Static).update(
            f"✓ Task written to {task.path}\n"
            f"Next: lmr-author validate --run {task.path}\nPress ctrl+q to quit."
        )
        self.set_status("saved ✓")
