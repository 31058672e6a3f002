"""Step 8: write the task folder (atomically; replacing a task only when confirmed)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Grid
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
    STEP_NUMBER = 8
    HELP: ClassVar[str] = "Write the task folder into the benchmark."

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
        self.query_one("#target", Static).update(self._target_text())

    @on(Button.Pressed, "#save")
    def _save_pressed(self) -> None:
        target = self._target()
        if target.exists():
            self.app.push_screen(ConfirmReplace(target), self._confirmed)
        else:
            self._start(False)

    def _confirmed(self, replace: bool | None) -> None:
        if replace:
            self._start(True)
        else:
            self.set_status("kept the existing task; nothing written")

    def _start(self, overwrite: bool) -> None:
        self.query_one("#save", Button).disabled = True
        self._save(overwrite)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _save(self, overwrite: bool) -> None:
        def step(message: str) -> None:
            self.app.call_from_thread(self.set_status, message + "…")

        try:
            task = build_task(
                self.spec, self.authoring.benchmark_dir, overwrite=overwrite, on_step=step
            )
        except UserError as error:
            self.app.call_from_thread(self._failed, str(error))
            return
        self.app.call_from_thread(self._saved, task)

    def _failed(self, message: str) -> None:
        self.query_one("#save", Button).disabled = False
        self.set_status(message, error=True)

    def _saved(self, task: Task) -> None:
        self.spec.step = "save"
        self.changed()
        self.query_one("#saved", Static).update(
            f"✓ Task written to {task.path}\n"
            f"Next: lmr-author validate --run {task.path}\nPress ctrl+q to quit."
        )
        self.set_status("saved ✓")
