"""Step 7: unit tests: fixtures recorded from the golden function, in the task's image.

The annotator writes a driver, a few lines that call the golden code the way the
paper's experiments do; "Record in Docker" runs it twice inside the environment of
step 6 (`lmr_author.authoring.record_docker`), never in lmr-author's own Python. When
the two recordings differ the golden is not deterministic: the step says where, and
offers seeding. The unit-test scaffold replays the fixtures.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.syntax import Syntax
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import (
    Button,
    RichLog,
    Select,
    Static,
    Switch,
    TabbedContent,
    TabPane,
    TextArea,
)

from lmr_author.authoring.build import replaced_test
from lmr_author.authoring.import_failure import GoalImportFailed
from lmr_author.authoring.scaffold import render_unit_test
from lmr_author.authoring.spec import TaskSpec
from lmr_author.authoring.task_layout import unit_test_file
from lmr_author.tui.new_task.steps._goal_picker import goal_select
from lmr_author.tui.new_task.steps.base import StepScreen, SurvivorHint, step_log
from lmr_author.tui.widgets.code_editor import code_editor
from lmr_author.tui.widgets.editor import edit_text
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    from lmr_author.authoring.record_docker import RecordingResult


class TestsStep(StepScreen):
    STEP_NUMBER = 7
    PRIMARY = ("record", "Record in Docker")
    HELP: ClassVar[str] = (
        "Driver: Python that calls the golden function (or a script path). Each call (up "
        "to 20) becomes a fixture of the unit test, recorded twice in the task's image."
    )

    current = 0
    _guard_target = ""
    #: The template in the editor while the goal has no driver ("" when none is shown).
    _template = ""

    class Scaffolded(Message):
        """The unit test the build would write for a goal (read off disk)."""

        def __init__(self, unit_test: str) -> None:
            super().__init__()
            self.unit_test = unit_test

    class Templated(Message):
        """The driver template of a goal with no driver yet (read off disk)."""

        def __init__(self, index: int, template: str) -> None:
            super().__init__()
            self.index = index
            self.template = template

    class RecordLog(Message):
        """One line of the recording's output (image build, driver)."""

        def __init__(self, line: str) -> None:
            super().__init__()
            self.line = line

    class Recorded(Message):
        """What recording twice in the image gave (or why it could not run)."""

        def __init__(
            self,
            result: RecordingResult | None,
            fixtures: list[str],
            error: str = "",
            guard_file: str | None = None,
        ) -> None:
            super().__init__()
            self.result = result
            self.fixtures = fixtures
            self.error = error
            #: The module whose top-level code failed the import (offered a guard).
            self.guard_file = guard_file

    def compose_step(self) -> ComposeResult:
        yield goal_select(self.spec.goals)
        # Above the editor: when recording twice differs, the warning and the seeding
        # switch are on screen at once, even at 80×24.
        yield Static("", id="nondeterminism", markup=False)
        with Horizontal(classes="row", id="seed-row"):
            yield Switch(value=self.spec.seed, id="seed")
            yield Static("Seed random, NumPy, torch before each call", id="seed-label")
        with TabbedContent(id="tests-tabs"):
            with TabPane("Driver", id="tab-driver"):
                # A survivor to kill (from Check) is shown beside the driver that must
                # tell it apart from the golden code.
                yield Static(
                    "A template: replace it with real calls (as it is, it records nothing).",
                    id="driver-note",
                    markup=False,
                )
                with Horizontal(id="driver-row"):
                    yield code_editor("", language="python", id="driver")
                    with VerticalScroll(id="survivor-pane"):
                        yield Static("", id="survivor-diff")
                with Horizontal(classes="row"):
                    yield Button("Open in $EDITOR", id="edit", compact=True)
                    yield Button("", id="guard", variant="warning", compact=True)
                yield Static("", id="recorded", markup=False)
                yield step_log("record-log")
            with TabPane("Unit test", id="tab-test"), VerticalScroll():
                yield Static("", id="unit-test")

    def on_mount(self) -> None:
        self.query_one("#nondeterminism", Static).display = False
        self.query_one("#seed-row").display = self.spec.seed
        self.query_one("#record-log", RichLog).display = False
        self.query_one("#guard", Button).display = False
        self.query_one("#driver-note", Static).display = False
        self._show_survivor()
        hint = self._hint()
        if hint is not None:
            self.query_one("#goal-select", Select).value = hint.goal_index
        self._load(hint.goal_index if hint is not None else 0)

    def _hint(self) -> SurvivorHint | None:
        hint = self.authoring.survivor_hint
        return hint if hint is not None and hint.goal_index < len(self.spec.goals) else None

    def _show_survivor(self) -> None:
        hint = self._hint()
        pane = self.query_one("#survivor-pane")
        pane.display = hint is not None
        if hint is None:
            return
        text = (
            f"# survivor {hint.key} ({hint.description}): the tests accept this change.\n"
            "# Add a call whose result differs, then record again.\n" + hint.diff
        )
        self.query_one("#survivor-diff", Static).update(
            Syntax(text, "diff", theme=self._theme(), word_wrap=True)
        )
        self.set_status(f"add a driver call that kills survivor {hint.key} ({hint.description})")

    def _theme(self) -> str:
        return "ansi_dark" if self.app.current_theme.dark else "ansi_light"

    def _load(self, index: int) -> None:
        if not self.spec.goals:
            return
        self.current = index
        goal = self.spec.goals[index]
        self._template = ""
        self.query_one("#driver-note", Static).display = False
        driver = self.query_one("#driver", TextArea)
        driver.load_text(goal.driver)
        # What is typed goes after the calls there (a fixture to add, from Check), never
        # before the first line while the view shows the last.
        driver.move_cursor(driver.document.end)
        self._scaffold(index, self.spec.seed)
        if not goal.driver.strip():
            self._make_template(index)

    @work(thread=True, exclusive=True, group="template", exit_on_error=False)
    def _make_template(self, index: int) -> None:
        from lmr_author.authoring.driver_template import driver_template

        goal = copy.deepcopy(self.spec.goals[index])
        self.post_message(self.Templated(index, driver_template(Path(self.spec.repo_path), goal)))

    @on(Templated)
    def _templated(self, message: Templated) -> None:
        # Only into an editor still empty for the same goal: never over what was typed.
        area = self.query_one("#driver", TextArea)
        goal = self.spec.goals[message.index]
        if message.index != self.current or goal.driver.strip() or area.text.strip():
            return
        self._template = message.template
        area.load_text(message.template)
        area.move_cursor(area.document.end)  # the calls typed go after its import
        self.query_one("#driver-note", Static).display = True

    @work(thread=True, exclusive=True, group="scaffold", exit_on_error=False)
    def _scaffold(self, index: int, seed: bool) -> None:
        goal = self.spec.goals[index]
        test = render_unit_test(
            goal_file=goal.goal_file,
            goal_function=goal.goal_function,
            class_name=goal.class_name,
            unit_test_file=unit_test_file(index + 1),
            seed=seed,
        )
        # Said before Save: the repository's own test at this path gives way to this one.
        replaced = replaced_test(self.spec, index)
        if replaced:
            test = "# ⚠ " + replaced + "\n\n" + test
        self.post_message(self.Scaffolded(test))

    @on(Scaffolded)
    def _show_scaffold(self, message: Scaffolded) -> None:
        self.query_one("#unit-test", Static).update(
            Syntax(message.unit_test, "python", theme=self._theme(), word_wrap=True)
        )

    @on(Select.Changed, "#goal-select")
    def _goal_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, int) and event.value != self.current:
            self._load(event.value)

    @on(TextArea.Changed, "#driver")
    def _driver_changed(self, event: TextArea.Changed) -> None:
        # The untouched template stays "" in the draft: it is no driver.
        text = event.text_area.text
        untouched = bool(self._template) and text == self._template
        self.query_one("#driver-note", Static).display = untouched
        value = "" if untouched else text
        if self.spec.goals and value != self.spec.goals[self.current].driver:
            self.spec.goals[self.current].driver = value
            self.changed()

    @on(Switch.Changed, "#seed")
    def _seed_changed(self, event: Switch.Changed) -> None:
        if event.value != self.spec.seed:
            self.spec.seed = event.value
            self.changed()
            self._scaffold(self.current, event.value)
            self.set_status("seeding on: record again" if event.value else "seeding off")

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
        if not self.spec.goals:
            return
        if not self.spec.goals[self.current].driver.strip():
            self.set_status(
                "nothing to record: write the calls of the driver (the template's are comments)",
                error=True,
            )
            return
        self.query_one("#record", Button).disabled = True
        log = self.query_one("#record-log", RichLog)
        log.clear()
        log.display = True
        self.log_start(f"Recording {self.spec.goals[self.current].goal_function} in Docker")
        self.set_status("recording in the task's image (twice; rebuilt if the repository changed)…")
        # Never an image built before: the environment is rebuilt when the repository or
        # requirements changed since (its tag is its content), reused otherwise.
        self._record(copy.deepcopy(self.spec), self.current)

    @work(thread=True, exclusive=True, group="record", exit_on_error=False)
    def _record(self, spec: TaskSpec, index: int) -> None:
        from lmr_author.authoring.record_docker import record_goal_in_docker

        def say(line: str) -> None:
            self.post_message(self.RecordLog(line))

        try:
            # The fixtures land in a scratch task folder: the save step records them
            # again into the task it writes; this run shows what they will be.
            with tempfile.TemporaryDirectory(prefix="lmr-author-record-") as scratch:
                result = record_goal_in_docker(spec, index, Path(scratch), on_log=say)
                fixtures = [path.name for path in result.expected]
        except GoalImportFailed as error:
            self.post_message(self.Recorded(None, [], str(error), guard_file=error.guard_file))
            return
        except UserError as error:
            self.post_message(self.Recorded(None, [], str(error)))
            return
        self.post_message(self.Recorded(result, fixtures))

    @on(RecordLog)
    def _record_log(self, message: RecordLog) -> None:
        self.query_one("#record-log", RichLog).write(message.line)
        self.log_progress("recording", message.line)

    @on(Recorded)
    def _recorded(self, message: Recorded) -> None:
        self.query_one("#record", Button).disabled = False
        warning = self.query_one("#nondeterminism", Static)
        result = message.result
        guard = self.query_one("#guard", Button)
        guard.display = (
            bool(message.guard_file) and message.guard_file not in self.spec.guarded_files
        )
        if message.guard_file:
            guard.label = f"Guard top-level code of {Path(message.guard_file).name}"
            self._guard_target = message.guard_file
        if result is None:
            self.set_status(message.error, error=True)
            return
        if not result.deterministic:
            text = result.message()
            warning.update("⚠ " + text)
            warning.display = True
            self.query_one("#seed-row").display = True
            self.query_one("#recorded", Static).update(
                "\n".join(f"{d.fixture}: {d.field} differs: {d.detail}" for d in result.differences)
            )
            self.set_status(text, error=True)
            return
        warning.display = False
        dropped = (
            f" ({result.dropped} more call(s) over the limit, not kept)" if result.dropped else ""
        )
        self.query_one("#recorded", Static).update(
            f"✓ {len(message.fixtures)} fixture(s) recorded twice, identical{dropped}: "
            + ", ".join(message.fixtures)
        )
        self.set_status(result.message() + f" ✓ ({result.seconds:.0f} s)")

    @on(Button.Pressed, "#guard")
    def _guard_pressed(self) -> None:
        target = self._guard_target
        if not target:
            return
        if target not in self.spec.guarded_files:
            self.spec.guarded_files.append(target)
            self.changed()
        self.query_one("#guard", Button).display = False
        self.set_status(
            f"{target}: top-level code guarded by 'if __name__ == \"__main__\":' in the "
            "task's copy (your repository is unchanged); recording again…"
        )
        self._record_pressed()

    def can_leave(self) -> str | None:
        for goal in self.spec.goals:
            if not goal.driver.strip():
                return (
                    f"Write a driver for {goal.goal_function}, to record its fixtures "
                    "(replace the template)."
                )
        return None
