"""Step 7: unit tests: fixtures recorded from the golden function.

The annotator writes a driver, a few lines that call the golden code the way the
paper's experiments do; "Record" runs it and shows what would be recorded, and the
build records the fixtures for real. The unit-test scaffold replays them; the
environment they run in is step 6's.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.syntax import Syntax
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Select, Static, TabbedContent, TabPane, TextArea

from lmr_author.authoring.fixtures import RecordedCall, dry_run_fixtures
from lmr_author.authoring.scaffold import render_unit_test
from lmr_author.errors import UserError
from lmr_author.tui.new_task.steps._goal_picker import goal_select
from lmr_author.tui.new_task.steps.base import StepScreen
from lmr_author.tui.widgets.editor import edit_text


class TestsStep(StepScreen):
    STEP_NUMBER = 7
    HELP: ClassVar[str] = (
        "Driver: Python that calls the golden function (or a script path). Its first three "
        "calls become the unit test's fixtures: inputs and expected outputs."
    )

    current = 0

    class Scaffolded(Message):
        """The unit test the build would write for a goal (read off disk)."""

        def __init__(self, unit_test: str) -> None:
            super().__init__()
            self.unit_test = unit_test

    class Recorded(Message):
        """The calls a dry run of the driver would record (or why it failed)."""

        def __init__(self, calls: list[RecordedCall], error: str = "") -> None:
            super().__init__()
            self.calls = calls
            self.error = error

    def compose_step(self) -> ComposeResult:
        yield goal_select(self.spec.goals)
        with TabbedContent(id="tests-tabs"):
            with TabPane("Driver", id="tab-driver"):
                yield TextArea("", id="driver", soft_wrap=False)
                with Horizontal(classes="row"):
                    yield Button("Record (dry run)", id="record", variant="success")
                    yield Button("Open in $EDITOR", id="edit")
                yield Static("", id="recorded")
            with TabPane("Unit test", id="tab-test"), VerticalScroll():
                yield Static("", id="unit-test")

    def on_mount(self) -> None:
        self._load(0)

    def _theme(self) -> str:
        return "ansi_dark" if self.app.current_theme.dark else "ansi_light"

    def _load(self, index: int) -> None:
        if not self.spec.goals:
            return
        self.current = index
        goal = self.spec.goals[index]
        self.query_one("#driver", TextArea).load_text(goal.driver)
        self._scaffold(index)

    @work(thread=True, exclusive=True, group="scaffold", exit_on_error=False)
    def _scaffold(self, index: int) -> None:
        goal = self.spec.goals[index]
        test = render_unit_test(
            goal_file=goal.goal_file,
            goal_function=goal.goal_function,
            class_name=goal.class_name,
            unit_test_file=f"unit_test/unit_test_{index + 1}.py",
        )
        self.post_message(self.Scaffolded(test))

    @on(Scaffolded)
    def _show_scaffold(self, message: Scaffolded) -> None:
        theme = self._theme()
        self.query_one("#unit-test", Static).update(
            Syntax(message.unit_test, "python", theme=theme)
        )

    @on(Select.Changed, "#goal-select")
    def _goal_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, int) and event.value != self.current:
            self._load(event.value)

    @on(TextArea.Changed, "#driver")
    def _driver_changed(self, event: TextArea.Changed) -> None:
        if self.spec.goals and event.text_area.text != self.spec.goals[self.current].driver:
            self.spec.goals[self.current].driver = event.text_area.text
            self.changed()

    @on(Button.Pressed, "#edit")
    def _edit(self) -> None:
        area = self.query_one("#driver", TextArea)
        edited = edit_text(self.app, area.text, suffix=".py")
        if edited is None:
            self.set_status("Set $EDITOR (or $VISUAL) to edit in your own editor.", error=True)
            return
        area.load_text(edited)

    @on(Button.Pressed, "#record")
    def _record_pressed(self) -> None:
        if self.spec.goals:
            self.log_start("Recording (dry run)")
            self.set_status("running the driver…")
            self._record(self.current)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _record(self, index: int) -> None:
        goal = self.spec.goals[index]
        try:
            calls = dry_run_fixtures(
                Path(self.spec.repo_path),
                goal.goal_file,
                goal.goal_function,
                goal.driver,
                class_name=goal.class_name,
            )
        except UserError as error:
            self.post_message(self.Recorded([], str(error)))
            return
        self.post_message(self.Recorded(calls))

    @on(Recorded)
    def _recorded(self, message: Recorded) -> None:
        if message.error:
            self.set_status(message.error, error=True)
            return
        self.query_one("#recorded", Static).update(
            "\n".join(call.describe() for call in message.calls)
        )
        self.set_status(f"{len(message.calls)} call(s) would be recorded ✓")

    def can_leave(self) -> str | None:
        for goal in self.spec.goals:
            if not goal.driver.strip():
                return f"Write a driver for {goal.goal_function}, to record its fixtures."
        return None
