"""The new-task app: nine steps, back and forward, with the draft autosaved.

The app holds the draft (`TaskSpec`) and moves between step screens; each step reads
the draft when it opens and writes its changes back, and every change is saved to the
draft file at once, so quitting anywhere and starting again resumes at the same step.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen

from lmr_author.authoring.drafts import last_saved, resume_draft
from lmr_author.authoring.spec import TaskSpec, draft_path, save_spec
from lmr_author.tui.new_task.steps import STEPS, StepScreen
from lmr_author.tui.new_task.steps.base import WIDE, AuthoringSession, SurvivorHint
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    from lmr_author.images.task_images import ImageRef
    from lmr_author.mutation.score import MutationReport


class NewTaskApp(App[int]):
    """Walks an annotator through authoring one task."""

    CSS_PATH = "new_task.tcss"
    TITLE = "lmr-author new-task"
    # Below 110 columns side-by-side panes stack (the .tcss says which).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE, "-wide")]  # noqa: RUF012 (Textual types it so)
    # Under 36 lines editors and logs shrink so the buttons below them stay near.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (36, "-tall")]  # noqa: RUF012
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "next_step", "Next", priority=True),
        Binding("ctrl+b", "previous_step", "Back", priority=True),
        # "Quit" (the draft is kept, as the tooltip says): every step's keys fit in the
        # footer's 80 columns (with "Quit (draft kept)" the Tests step's lost ^b Back).
        Binding("ctrl+q", "quit", "Quit", priority=True, tooltip="Quit; the draft is kept"),
        # Tab moves the focus the moment it arrives. Textual sends a key to the widget
        # focused when the key is read and moves the focus only once that widget has
        # passed the Tab up; keys typed right after a Tab (a fast typist, a paste, tmux)
        # then went into the field being left.
        Binding("tab", "focus_next", show=False, priority=True),
        Binding("shift+tab", "focus_previous", show=False, priority=True),
    ]

    class DraftNotSaved(Message):
        """Autosaving the draft failed (the disk is full, the folder is read-only, ...)."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    def __init__(
        self, *, benchmark_dir: Path, draft_name: str = "current", base_image: str | None = None
    ) -> None:
        super().__init__()
        self.benchmark_dir = benchmark_dir
        self.draft_file = draft_path(draft_name)
        self.draft_name = draft_name
        # Before the app runs: no UI to freeze yet. A finished task's draft is not resumed,
        # but the new one says where that task went.
        self.saved_before = last_saved(draft_name)
        self.spec = resume_draft(draft_name)
        if not self.spec.benchmark_dir:
            self.spec.benchmark_dir = str(benchmark_dir)
        self.benchmark_dir = Path(self.spec.benchmark_dir)
        # --base-image is the draft's base image from now on (the Environment step shows
        # it, and every build, recording, Verify and Save starts from it).
        self._base_image_given = bool(base_image) and base_image != self.spec.base_image
        if base_image:
            self.spec.base_image = base_image
        self.paper_pages: dict[str, str] = {}
        #: The environment image built in step 6 (fixtures are recorded in it).
        self.environment_image: ImageRef | None = None
        #: The survivor whose diff the Tests step shows beside the driver (from Check).
        self.survivor_hint: SurvivorHint | None = None
        #: The last mutation test: (the draft's content key, its reports); Check shows
        #: it again while the content is the same.
        self.mutation_reports: tuple[str, list[MutationReport]] | None = None
        # Autosaves run in workers; the version makes an older snapshot that finishes
        # late never overwrite a newer one.
        self._draft_lock = threading.Lock()
        self._draft_version = 0
        self._saved_version = 0
        #: The draft became a task: every later write of it keeps it marked finished.
        self._finished = False

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, StepScreen):
            yield from screen.palette_commands()

    def on_mount(self) -> None:
        names = [name for name, _ in STEPS]
        start = self.spec.step if self.spec.step in names else names[0]
        self.push_screen(self._make(start))
        if self._base_image_given:
            self.autosave()
        if self.saved_before is not None:
            saved = self.saved_before
            text = f"last task saved: {saved.name} in {saved.parent}; a new draft now"
            self.call_after_refresh(self.say, text)
        if self.spec.paper_pdf and start != "paper":
            self._load_paper(self.spec.paper_pdf)  # a resumed draft keeps its paper

    class PaperLoaded(Message):
        """The resumed draft's paper pages (empty when the PDF is gone)."""

        def __init__(self, pages: dict[str, str]) -> None:
            super().__init__()
            self.pages = pages

    @work(thread=True, exclusive=True, group="paper", exit_on_error=False)
    def _load_paper(self, paper: str) -> None:
        from lmr_author.authoring.paper_forms import read_paper

        try:
            pages = read_paper(paper).pages
        except UserError:
            pages = {}  # the paper step says why when the annotator goes there
        self.post_message(self.PaperLoaded(pages))

    @on(PaperLoaded)
    def _paper_loaded(self, message: PaperLoaded) -> None:
        if not self.paper_pages:
            self.paper_pages = message.pages
            if isinstance(self.screen, StepScreen) and message.pages:
                self.screen.paper_loaded()

    def autosave(self) -> None:
        """Save a snapshot of the draft (atomic, off the UI thread): nothing typed is lost."""
        self._draft_version += 1
        self._save_draft(self._draft_version, copy.deepcopy(self.spec))

    @work(thread=True, exclusive=True, group="autosave", exit_on_error=False)
    def _save_draft(self, version: int, snapshot: TaskSpec) -> None:
        try:
            self._write_draft(version, snapshot)
        except (OSError, UserError) as error:
            self.post_message(self.DraftNotSaved(str(error)))

    def _write_draft(self, version: int, snapshot: TaskSpec) -> None:
        with self._draft_lock:
            if version > self._saved_version:
                snapshot.finished = snapshot.finished or self._finished
                save_spec(snapshot, self.draft_file)
                self._saved_version = version

    def draft_finished(self, saved: TaskSpec) -> None:
        """The task was written: mark the draft finished on disk at once (called from
        the save's worker thread), before the UI hears of it. Quitting now, or a late
        autosave of an older snapshot, can no longer leave a draft the next
        `new-task` would resume as if the task had not been saved."""
        with self._draft_lock:
            self._finished = True
            finished = copy.deepcopy(saved)
            finished.finished = True
            save_spec(finished, self.draft_file)

    def say(self, text: str, *, error: bool = False) -> None:
        """Put a message in the one message area: the current step's status line."""
        screen = self.screen
        if isinstance(screen, StepScreen):
            screen.set_status(text, error=error)

    @on(DraftNotSaved)
    def _draft_not_saved(self, message: DraftNotSaved) -> None:
        self.say(f"draft not saved: {message.reason}", error=True)

    def on_unmount(self) -> None:
        # Quitting must not lose the last change to a worker still queued; one small
        # write at exit is the only disk access of the app's own thread.
        if self._draft_version > self._saved_version:
            self._write_draft(self._draft_version, self.spec)

    def _make(self, name: str) -> StepScreen:
        return dict(STEPS)[name]()

    def _step_index(self) -> int:
        names = [name for name, _ in STEPS]
        return names.index(self.spec.step) if self.spec.step in names else 0

    def go_to(self, index: int) -> None:
        name = STEPS[index][0]
        self.spec.step = name
        self.autosave()
        self.switch_screen(self._make(name))

    def action_next_step(self) -> None:
        screen = self.screen
        if isinstance(screen, StepScreen):
            problem = screen.can_leave()
            if problem:
                screen.say_not_yet(problem)
                return
        index = self._step_index()
        if index + 1 < len(STEPS):
            self.go_to(index + 1)

    def action_previous_step(self) -> None:
        index = self._step_index()
        if index > 0:
            self.go_to(index - 1)


def _as_session(app: NewTaskApp) -> AuthoringSession:
    return app  # mypy proves here that the app gives the steps all they use
