"""Step 9: write the task folder, checked: the save checks of this exact content are
reused or run (`lmr_author.authoring.save.save_draft_task`), an unverified task is
written only after the annotator confirms it, and an existing task is replaced only
when confirmed. What was written is listed."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Grid
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RichLog, Static

from lmr_author.authoring.spec import TaskSpec
from lmr_author.tui.new_task.steps.base import StepScreen, step_log
from lmr_author.tui.new_task.steps.check import describe_check, strength_line
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    from lmr_author.authoring.save import SaveCheck


class ConfirmReplace(ModalScreen[bool]):
    """Asks before an existing task folder is replaced."""

    BINDINGS: ClassVar = [("y", "answer(True)", "Replace"), ("n,escape", "answer(False)", "Keep")]

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        with Grid(id="confirm"):
            yield Label(f"{self.path} exists already. Replace it?", id="confirm-question")
            yield Button("Replace (y)", variant="error", id="yes", compact=True)
            yield Button("Keep it (n)", variant="primary", id="no", compact=True)

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class ConfirmUnverified(ModalScreen[bool]):
    """Asks before a task that did not pass its checks is written, with the reasons."""

    BINDINGS: ClassVar = [("y", "answer(True)", "Write it"), ("n,escape", "answer(False)", "No")]

    def __init__(self, reasons: list[str]) -> None:
        super().__init__()
        self.reasons = reasons

    def compose(self) -> ComposeResult:
        with Grid(id="confirm"):
            yield Static(
                "This task is NOT verified:\n"
                + "\n".join(f"• {reason}" for reason in self.reasons or ["it was not checked"])
                + "\n\nWrite it anyway? (lmr-author validate will report it)",
                id="confirm-question",
                markup=False,
            )
            yield Button("Write unverified (y)", variant="error", id="yes", compact=True)
            yield Button("Don't write (n)", variant="primary", id="no", compact=True)

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


@dataclass
class Written:
    """What the save wrote: the task folder, its files, and the draft as saved."""

    path: Path
    files: list[str]
    saved: TaskSpec


class SaveStep(StepScreen):
    STEP_NUMBER = 9
    PRIMARY = ("save", "Save task")
    HELP: ClassVar[str] = (
        "Write the task folder into the benchmark. Save reuses the checks of this exact "
        "content, or runs them; an unverified task is written only when you confirm."
    )

    class Looked(Message):
        """Whether the task folder exists, and the remembered checks (looked up off the UI)."""

        def __init__(
            self, target: Path, exists: bool, check: SaveCheck | None, *, announce: bool
        ) -> None:
            super().__init__()
            self.target = target
            self.exists = exists
            self.check = check
            self.announce = announce  # the Save button asked (not the first look)

    class Progress(Message):
        """A step of the save started, or a line of its log."""

        def __init__(self, line: str) -> None:
            super().__init__()
            self.line = line

    class Done(Message):
        """The task was written, or why not (``unverified`` lists the reasons)."""

        def __init__(
            self, written: Written | None, error: str = "", unverified: list[str] | None = None
        ) -> None:
            super().__init__()
            self.written = written
            self.error = error
            self.unverified = unverified

    def __init__(self) -> None:
        super().__init__()
        self._exists = False  # whether the task folder exists (last looked up in a worker)

    def compose_step(self) -> ComposeResult:
        yield Label("Benchmark folder")
        yield Input(str(self.authoring.benchmark_dir), id="into")
        yield Static(self._target_text(), id="target", markup=False)
        yield Static("", id="check-state", markup=False)
        yield Static("", id="saved", markup=False)
        yield step_log("save-log")

    def on_mount(self) -> None:
        self.query_one("#save-log", RichLog).display = False
        self._look(self._target(), copy.deepcopy(self.spec), announce=False)

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
        self._look(self._target(), copy.deepcopy(self.spec), announce=True)

    @work(thread=True, exclusive=True, group="look", exit_on_error=False)
    def _look(self, target: Path, spec: TaskSpec, *, announce: bool) -> None:
        from lmr_author.authoring.save import last_check

        self.post_message(self.Looked(target, target.exists(), last_check(spec), announce=announce))

    @on(Looked)
    def _looked(self, message: Looked) -> None:
        self.query_one("#check-state", Static).update(self._checks_text(message.check))
        self._exists = message.exists
        if not message.announce:
            return
        if message.exists:
            self.app.push_screen(ConfirmReplace(message.target), self._replace_confirmed)
        else:
            self._start(overwrite=False, allow_unverified=False)

    def _checks_text(self, check: SaveCheck | None) -> str:
        """The checks of this content and its mutation score, as the Check step measured
        it this session for this very content (the reports the app keeps by content key)."""
        text = "Checks: " + describe_check(check)
        kept = self.authoring.mutation_reports
        if check is not None and kept is not None and kept[0] == check.key and kept[1]:
            return text + "\nMutation test: " + strength_line(self.spec, kept[1], left=True)
        return text + "\nMutation test: not run for this content (the Check step's ctrl+g)"

    def _replace_confirmed(self, replace: bool | None) -> None:
        if replace:
            self._start(overwrite=True, allow_unverified=False)
        else:
            self.query_one("#save", Button).disabled = False
            self.set_status("kept the existing task; nothing written")

    def _start(self, *, overwrite: bool, allow_unverified: bool) -> None:
        log = self.query_one("#save-log", RichLog)
        log.display = True
        self.log_start("Save")
        self.set_status("saving: checks, then writing…")
        self._save(copy.deepcopy(self.spec), overwrite, allow_unverified)

    @work(thread=True, exclusive=True, group="save", exit_on_error=False)
    def _save(self, spec: TaskSpec, overwrite: bool, allow_unverified: bool) -> None:
        from lmr_author.authoring.save import UnverifiedTask, save_draft_task

        def say(line: str) -> None:
            self.post_message(self.Progress(line))

        try:
            task = save_draft_task(
                spec,
                self.authoring.benchmark_dir,
                allow_unverified=allow_unverified,
                overwrite=overwrite,
                on_step=say,
                on_log=say,
            )
        except UnverifiedTask as unverified:
            reasons = unverified.check.reasons or ["it was not verified"]
            self.post_message(self.Done(None, str(unverified), unverified=reasons))
            return
        except UserError as error:
            self.post_message(self.Done(None, str(error)))
            return
        self.authoring.draft_finished(spec)  # on disk now, whatever happens to the UI
        files = sorted(
            path.relative_to(task.path).as_posix()
            for path in task.path.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts
        )
        self.post_message(self.Done(Written(task.path, files, spec)))

    @on(Progress)
    def _progress(self, message: Progress) -> None:
        self.query_one("#save-log", RichLog).write(message.line)
        self.log_progress("saving", message.line)

    @on(Done)
    def _done(self, message: Done) -> None:
        written = message.written
        if written is None:
            if message.unverified is not None:
                self.app.push_screen(
                    ConfirmUnverified(message.unverified), self._unverified_confirmed
                )
                return
            self.query_one("#save", Button).disabled = False
            self.set_status(message.error, error=True)
            return
        # The library filled instance_id/year and marked the draft finished: keep that.
        for name in ("instance_id", "year", "finished", "benchmark_dir"):
            setattr(self.spec, name, getattr(written.saved, name))
        self.spec.step = "save"
        self.changed()
        # What the task holds, folded to its top level: the next command stays on screen.
        tops: dict[str, int] = {}
        for name in written.files:
            top = name.split("/", 1)[0] + ("/" if "/" in name else "")
            tops[top] = tops.get(top, 0) + 1
        shown = ", ".join(
            f"{top} ({count})" if top.endswith("/") else top for top, count in tops.items()
        )
        # The task's Dockerfile keeps its FROM: its checks ran on the draft's base image.
        base = f" --base-image {self.spec.base_image}" if self.spec.base_image else ""
        self.query_one("#saved", Static).update(
            f"✓ Task written to {written.path} ({len(written.files)} files)\n"
            f"Next: lmr-author validate --run {written.path}{base}\nPress ctrl+q to quit.\n"
            f"Holds: {shown}"
        )
        self.set_status("saved ✓")

    def _unverified_confirmed(self, write: bool | None) -> None:
        if write:
            self._start(overwrite=self._exists, allow_unverified=True)
        else:
            self.query_one("#save", Button).disabled = False
            self.set_status("not written: the task is not verified", error=True)
