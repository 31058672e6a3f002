"""What every step screen shares: a one-line title, a scrollable body, and one nav row:
Back, the one message area (the status line, wrapped over up to three lines, whose full
output opens with ctrl+l), the step's primary action (Build, Record, Verify, Save...;
also ctrl+r) and Next. The nav row is always on screen, so the primary action is
visible at 80×24 whatever the body holds. Back and Next take no focus: Enter in a field
never goes back by accident."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol, cast

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, Footer, RichLog, Static

from lmr_author.authoring.spec import TaskSpec
from lmr_author.images.task_images import ImageRef
from lmr_author.tui.new_task.steps._status_line import StatusLine
from lmr_author.tui.widgets.log_view import LogScreen, OutputLog, first_line

if TYPE_CHECKING:
    from lmr_author.mutation.score import MutationReport

#: The clock of the status line's "(N s)" (one name, so a test can move it).
_clock = time.monotonic
_LOG_HINT_WIDTH = len("^l log") + 2  # with its padding
#: Columns from which panes sit side by side (the app's breakpoint) and the app's name
#: fits in the title line.
WIDE = 110

STEP_TITLES = (
    "Source",
    "Paper",
    "Goal function",
    "Mask",
    "Instruction",
    "Environment",
    "Tests",
    "Check",
    "Save",
)


def step_log(log_id: str) -> RichLog:
    """A step's log of long work (a build, a recording, the proof): wrapped at its own
    width. RichLog's default wraps at 78 columns at least, and an 80-column screen's log,
    76 wide, lost the end of every long line."""
    return RichLog(id=log_id, max_lines=2000, wrap=True, markup=False, min_width=1)


@dataclass(frozen=True)
class SurvivorHint:
    """A surviving mutant the annotator wants a fixture to kill: the Tests step shows its
    diff beside the driver."""

    goal_index: int  # into the draft's goals
    key: str
    description: str
    diff: str


class AuthoringSession(Protocol):
    """What a step needs from the app that runs the flow (`NewTaskApp` provides it).

    Declared here so the steps never import the app, which imports every step.
    """

    spec: TaskSpec
    benchmark_dir: Path
    paper_pages: dict[str, str]
    environment_image: ImageRef | None
    survivor_hint: SurvivorHint | None
    #: The last mutation test of the session: (the draft's content key, its reports).
    mutation_reports: tuple[str, list[MutationReport]] | None

    def autosave(self) -> None: ...
    def draft_finished(self, saved: TaskSpec) -> None: ...
    def go_to(self, index: int) -> None: ...
    def action_next_step(self) -> None: ...
    def action_previous_step(self) -> None: ...


class StepScreen(Screen[None]):
    """A step of the flow; subclasses fill `compose_step` and `can_leave`."""

    STEP_NUMBER: ClassVar[int] = 1
    HELP: ClassVar[str] = ""
    #: No focus by Textual's first-focusable rule (a table, a list): the step's first
    #: input gets it (`focus_first_input`), or what the step chooses.
    AUTO_FOCUS = ""  # None would mean the app's: the first focusable
    #: The step's primary action, drawn in the nav line: (button id, label).
    PRIMARY: ClassVar[tuple[str, str] | None] = None
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+l", "show_log", "Log", priority=True),
        Binding("ctrl+r", "primary", "Action", priority=True),
    ]

    def palette_commands(self) -> Iterable[SystemCommand]:
        """The step's own commands for the command palette (ctrl+p), beside the app's."""
        return ()

    def __init__(self) -> None:
        super().__init__()
        #: The full output behind the status line (errors, build and run logs).
        self.output = OutputLog()
        self._work_started = _clock()  # of the work whose lines the status says
        #: What the status says of the running work: (activity, its latest line); None
        #: once the step says something else.
        self._work_line: tuple[str, str] | None = None
        self._ticking: Timer | None = None
        #: The "not yet" the status shows (`say_not_yet`): (the problem, the status).
        self._not_yet: tuple[str, str] | None = None

    @property
    def authoring(self) -> AuthoringSession:
        return cast("AuthoringSession", self.app)

    @property
    def spec(self) -> TaskSpec:
        return self.authoring.spec

    @on(events.ScreenResume)
    def _focus_first_input_soon(self) -> None:
        # At once, so that keys typed while a busy machine draws the step are not lost
        # on a screen with no focus; and again after the step's own on_mount and its
        # first refresh, which may hide or fill widgets (a no-op when focus is set).
        self.focus_first_input()
        self.call_after_refresh(self.focus_first_input)

    def focus_first_input(self) -> None:
        """Focus the step's first shown input, unless the step focused one itself.

        Keys typed as soon as a step opens (or a draft resumes) land in a field instead
        of being lost; returning from the log keeps the focus the annotator left.
        """
        body = self.query_one("#step-body")
        if self.focused is not None and self.focused is not body:
            return
        for widget in body.query("Input, TextArea, Select, RadioSet").results():
            shown = all(node.display for node in widget.ancestors_with_self if node is not self)
            if shown and widget.focusable:
                widget.focus(scroll_visible=False)  # the step opens at its top, help shown
                return

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="step-title")
        body = VerticalScroll(id="step-body")
        # The body is no stop of Tab: it holds the fields, and a focused container shows
        # nothing (a Tab that seemed lost). It scrolls to the field in focus.
        body.can_focus = False
        with body:
            if self.HELP:
                yield Static(self.HELP, id="step-help")
            yield from self.compose_step()
        with Horizontal(id="nav"):
            back = Button("◀ Back", id="back", compact=True, disabled=self.STEP_NUMBER == 1)
            back.can_focus = False
            yield back
            yield StatusLine(id="status")
            yield Static("^l log", id="log-hint")
            if self.PRIMARY is not None:
                button_id, label = self.PRIMARY
                yield Button(
                    label, id=button_id, variant="success", compact=True, classes="primary"
                )
            forward = Button(
                "Next ▶",
                id="next",
                variant="primary",
                compact=True,
                disabled=len(STEP_TITLES) == self.STEP_NUMBER,
            )
            forward.can_focus = False
            yield forward
        yield Footer(compact=True)

    def action_primary(self) -> None:
        """ctrl+r: press the step's primary action (when it is not busy)."""
        if self.PRIMARY is None:
            return
        button = self.query_one(f"#{self.PRIMARY[0]}", Button)
        if not button.disabled:
            button.press()

    def _title(self) -> Content:
        # The paper's title on every step: a resumed draft says at once what it is about.
        title = STEP_TITLES[self.STEP_NUMBER - 1]
        paper = self.spec.paper_name or "no paper yet"
        if self.spec.paper_later and not self.spec.paper_pdf:
            paper += " (paper: later)"
        # Under 110 columns the app's name gives its room to the paper's title (the
        # terminal's window says the app; the Paper step shows the whole title).
        app = "[b]lmr-author new-task[/b] · " if self.app.size.width >= WIDE else ""
        return Content.from_markup(
            f"{app}step {self.STEP_NUMBER}/{len(STEP_TITLES)} · [b]$title[/b] · $paper",
            title=title,
            paper=paper,
        )

    def refresh_title(self) -> None:
        self.query_one("#step-title", Static).update(self._title())

    def on_resize(self) -> None:
        self.refresh_title()

    def compose_step(self) -> ComposeResult:
        yield from ()

    def paper_loaded(self) -> None:
        """The resumed draft's paper finished loading (steps that use it override this)."""

    def can_leave(self) -> str | None:
        """Why the annotator cannot go on yet, or None."""
        return None

    def set_status(self, text: str, *, error: bool = False) -> None:
        """Say one thing in the one message area; the whole text also goes to the log.

        The status is the text's first line, wrapped over up to three lines (cut with an
        ellipsis past them), so the step keeps its room at 80×24; an error or a longer
        text (a traceback, a hint, a first line the status cannot hold) is added whole
        to the step's output, which ctrl+l opens, and an error is shown for a while in a
        notification over the body (cut to fit; gone when the step is left).
        """
        self._work_line = None
        self._put_status(text, error=error)

    def _put_status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#status", StatusLine)
        status.set_class(error, "error")
        shown = ("✗ " if error else "") + first_line(text)
        # The room it will have: the log hint beside it takes some once shown.
        width = status.content_region.width - (0 if self.output.lines else _LOG_HINT_WIDTH)
        longer = len(text.splitlines()) > 1 or not status.fits(shown, width)
        if (error or longer) and text.strip():
            self.output.add(text)
        self.query_one("#log-hint", Static).display = bool(self.output.lines)
        status.update(shown)
        if error and text.strip() and longer:
            self.app.notify(self._fitted(text), severity="error", timeout=20, markup=False)

    def _fitted(self, text: str) -> str:
        """``text`` cut to what a notification may cover: a quarter of the screen's height
        at most, so the step's fields and its status line stay in sight at 80×24; the
        whole text is in the log (ctrl+l)."""
        # A toast is 60 columns, at most half of the screen's inside (1 column of margin
        # each side); its edge and padding take 3.
        width = max(20, min(60, (self.app.size.width - 2) // 2) - 3)
        room = max(2, self.app.size.height // 4 - 2)  # its padding takes 2 lines
        lines = [part for line in text.splitlines() for part in textwrap.wrap(line, width) or [""]]
        if len(lines) <= room:
            return text
        return "\n".join([*lines[: room - 1], "… the whole text: ctrl+l"])

    @on(events.ScreenSuspend)
    def _drop_notifications(self) -> None:
        # A step's errors are about that step: none stays over the next one.
        self.app.clear_notifications()

    def log_start(self, title: str) -> None:
        """Start the output of a new piece of work (a build, a recording, a check)."""
        self.output.start(title)
        self.app.clear_notifications()  # the last attempt's error is not this one's
        self.query_one("#log-hint", Static).display = True
        self._work_started = _clock()
        if self._ticking is None:
            self._ticking = self.set_interval(1.0, self._tick)

    def log_line(self, line: str) -> None:
        self.output.add(line)

    def log_progress(self, activity: str, line: str) -> None:
        """A line of long work (a build, a recording, the proof): into the output, and
        the status line says it with the time so far, which keeps counting between
        lines. At 80×24 the step's own log may be below the fold, and a bare
        "building…" for minutes (or a clock stopped while the image is written) looks
        hung."""
        self.log_line(line)
        shown = " ".join(Text.from_ansi(line).plain.split())
        if shown:
            self._work_line = (activity, shown)
            self._show_progress()

    def work_seconds(self) -> int:
        """Seconds since the work began (`log_start`): the one clock of the status line's
        "(N s)" while it runs and of its result when it ends."""
        return int(_clock() - self._work_started)

    def _show_progress(self) -> None:
        if self._work_line is not None:
            activity, shown = self._work_line
            self._put_status(f"{activity} ({self.work_seconds()} s): {shown}")

    def _tick(self) -> None:
        """Every second: the time so far, while this step's work still runs (phases
        with no log line, such as writing the image, last minutes)."""
        if self._work_line is None:
            return
        if any(worker.node is self and worker.is_running for worker in self.app.workers):
            self._show_progress()
        else:
            self._work_line = None  # the work ended without a word: the clock stops

    def action_show_log(self) -> None:
        self.app.push_screen(LogScreen(self.output))

    def changed(self) -> None:
        """Call after writing to the draft: saves it at once. A "not yet" the status
        still shows goes once what it asked for is done."""
        self.authoring.autosave()
        if self._not_yet is None:
            return
        said, shown = self._not_yet
        if shown != str(self.query_one("#status", StatusLine).visual):
            self._not_yet = None  # the step has said something else since
            return
        problem = self.can_leave()
        if problem is None:
            self.set_status("ready: ctrl+n goes to the next step")
        elif problem != said:
            self.say_not_yet(problem)

    def say_not_yet(self, problem: str) -> None:
        """Why the step cannot be left yet (ctrl+n), in the status until it is done."""
        self.set_status(f"not yet: {problem}", error=True)
        self._not_yet = (problem, str(self.query_one("#status", StatusLine).visual))

    @on(Button.Pressed, "#next")
    def _next(self) -> None:
        self.authoring.action_next_step()

    @on(Button.Pressed, "#back")
    def _back(self) -> None:
        self.authoring.action_previous_step()
