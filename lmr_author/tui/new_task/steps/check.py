"""Step 8: check the draft: the schema live as fields change, then the save checks (the
static rules and the proof in Docker that the tests pass on golden code and fail on
masked code), with the progress streaming in. The result is remembered for this exact
content (`lmr_author.authoring.save`), so Save reuses it instead of running it again."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from rich.syntax import Syntax
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, Label, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from lmr_author.authoring.check import draft_info, live_check
from lmr_author.authoring.spec import TaskSpec
from lmr_author.tui.new_task.steps._lists import WrappedOptionList
from lmr_author.tui.new_task.steps.base import StepScreen, SurvivorHint, step_log
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    from lmr_author.authoring.save import SaveCheck
    from lmr_author.mutation.mutants import Mutant
    from lmr_author.mutation.score import MutationReport

_FIELDS = (
    ("folder_name", "Task folder name (e.g. 07-MyMethod)"),
    ("instance_id", "Instance id (a number; from the folder name when empty)"),
    ("paper_url", "Paper URL"),
    ("year", "Year (from the PDF's metadata when empty)"),
    ("gpus", "GPUs one run needs (empty or 0: none)"),
    ("gpu_memory_gb", "GB of memory each GPU needs (empty: any)"),
)


def describe_check(check: SaveCheck | None, seconds: int | None = None) -> str:
    """One line on the checks of this content; ``seconds``: how long the Verify just done
    took, by the status line's clock (a remembered check says no time: its own measure
    left out the build and the recording, and two figures for one piece of work
    disagreed)."""
    if check is None:
        return "not checked yet for this content"
    took = f" in {seconds} s" if seconds is not None else ""
    if check.verified:
        return f"verified ✓ golden passes, masked fails{took} (this exact content)"
    return f"not verified{took}: {check.reasons[0] if check.reasons else 'unknown reason'}"


def mutation_counts(spec: TaskSpec, report: MutationReport) -> tuple[int, int]:
    """(mutants that count, of them marked equivalent) of a report, with the marks made
    since it ran."""
    goal = spec.goals[report.impl_index - 1]
    marked = {item.get("mutant") for item in goal.equivalent_mutants}
    now = sum(1 for m in report.survivors if m.key in marked) + len(report.equivalent)
    return report.total - report.errors - now, now


def strength_line(spec: TaskSpec, reports: list[MutationReport], *, left: bool = False) -> str:
    """One line on how strong the tests are: the mutation score, or what it would say;
    ``left``: with the survivors still to kill or mark (the Save step's summary)."""
    if not reports:
        return "mutation test not run yet: counts the bugs in the goal the tests catch"
    killed = sum(report.killed for report in reports)
    counts = [mutation_counts(spec, report) for report in reports]
    counted, equivalent = sum(c for c, _ in counts), sum(e for _, e in counts)
    apart = f", {equivalent} equivalent apart" if equivalent else ""
    alive = counted - killed
    still = f", {alive} survivor{'' if alive == 1 else 's'} left" if left and alive else ""
    line = f"mutants killed {killed}/{counted}{still}{apart}"
    if counted and killed * 2 < counted:
        return f"⚠ weak tests: {line}; fewer than half of the bugs are caught"
    return line + (" ✓" if killed == counted else "")


def _shown(name: str, value: str | int | float | None) -> str:
    """A field's text: empty for no value (and for no GPU), ``24`` for 24.0 GB."""
    if value is None or (name == "gpus" and value == 0):
        return ""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _hardware_value(name: str, text: str) -> int | float | str | None:
    """The draft's ``gpus`` / ``gpu_memory_gb`` typed in a field, or what is wrong with it."""
    text = text.strip()
    if name == "gpus":
        if not text:
            return 0
        if text.isascii() and text.isdigit() and len(text) <= 3:
            return int(text)
        return "GPUs: give a whole number (0: none)."
    if not text:
        return None
    try:
        memory = float(text)
    except ValueError:
        memory = -1.0
    if not math.isfinite(memory) or memory <= 0:
        return "GPU memory: give a positive number of GB, e.g. 24 (empty: any)."
    return memory


class CheckStep(StepScreen):
    STEP_NUMBER = 8
    PRIMARY = ("verify", "Verify")
    HELP: ClassVar[str] = (
        "info.json is checked against the schema as you type. 'Verify' builds the task "
        "(fixtures recorded in its image), runs the static rules, and proves in Docker "
        "that golden passes and masked fails."
    )
    #: The survivors of a mutation test come first in the step, and one key away.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "survivors", "Survivors"),
        # ctrl+g: free in this step and app-wide (ctrl+r is Verify, ctrl+t indents in
        # an editor, ctrl+a/e/k/u/w/d edit a field).
        Binding("ctrl+g", "mutation_test", "Mutation test"),
    ]

    class Checked(Message):
        """The save checks' result (or why they could not run)."""

        def __init__(
            self,
            check: SaveCheck | None,
            *,
            error: str = "",
            remembered: bool = False,
            filled: TaskSpec | None = None,
            key: str = "",
            timed: bool = True,
        ):
            super().__init__()
            self.check = check
            self.error = error
            self.remembered = remembered
            #: The work just done was this verification (False: a mutation test's, which
            #: reused or made one on its way: its time is not the verification's).
            self.timed = timed and not remembered
            self.filled = filled  # the draft with instance_id / year filled for the check
            self.key = key  # the draft's content key (of the mutation test it may have had)

    class VerifyLog(Message):
        """A line of the checks' progress, the image build or the recording."""

        def __init__(self, line: str) -> None:
            super().__init__()
            self.line = line

    def __init__(self) -> None:
        super().__init__()
        self.verified = False
        self.verified_shown = False  # the check state says "verified" (the strength shows)
        self._reports: list[MutationReport] = []
        #: Seconds the mutation test on screen took (None: not timed here, e.g. remembered).
        self._mutation_took: int | None = None
        self._activity = "verifying"  # what the status calls the running work

    def compose_step(self) -> ComposeResult:
        with Horizontal(id="check-panes"):
            with Vertical(id="check-fields"):
                for name, label in _FIELDS:
                    yield Label(label)
                    yield Input(_shown(name, getattr(self.spec, name)), id=f"field-{name}")
                with Horizontal(classes="row"):
                    yield Button("Mutation test", id="mutants", compact=True)
                yield Static("", id="schema-state", markup=False)
                yield Static("", id="check-state", markup=False)
                yield Static("", id="strength", markup=False)
                yield Button("Strengthen the tests", id="strengthen", compact=True)
            with VerticalScroll(id="info-pane"):
                yield Static("", id="info-json")
        # The checks' findings, whole (a table cut each message at the screen's edge).
        yield Static("", id="findings", markup=False)
        with Vertical(id="mutation"):
            yield Static("", id="mutation-score", markup=False)
            yield WrappedOptionList(id="survivor-list")
            yield Static("", id="survivors")
            with Horizontal(classes="row", id="equivalent-row"):
                yield Input(
                    placeholder="why it computes the same (e.g. square matrices)",
                    id="equivalent-reason",
                )
                yield Button("Mark equivalent", id="mark-equivalent", compact=True)
            yield Button(
                "Add a fixture that kills it (its diff beside the driver)",
                id="add-fixture",
                compact=True,
            )
        yield step_log("verify-log")

    def on_mount(self) -> None:
        self.query_one("#findings", Static).display = False
        self.query_one("#mutation").display = False
        self.query_one("#strengthen").display = False
        self.query_one("#verify-log", RichLog).display = False
        self._refresh_info()
        self._remembered(copy.deepcopy(self.spec))

    @work(thread=True, exclusive=True, group="check", exit_on_error=False)
    def _remembered(self, spec: TaskSpec) -> None:
        from lmr_author.authoring.save import content_key, last_check

        key = content_key(spec)
        self.post_message(self.Checked(last_check(spec), remembered=True, key=key))

    @on(Input.Changed)
    def _field_changed(self, event: Input.Changed) -> None:
        name = (event.input.id or "").removeprefix("field-")
        if name in ("instance_id", "year"):
            text = event.value.strip()
            value = int(text) if text.isascii() and text.isdigit() else None
            if value == getattr(self.spec, name):
                return
            setattr(self.spec, name, value)
        elif name in ("folder_name", "paper_url"):
            if event.value.strip() == getattr(self.spec, name):
                return
            setattr(self.spec, name, event.value.strip())
        elif name in ("gpus", "gpu_memory_gb"):
            typed = _hardware_value(name, event.value)
            if isinstance(typed, str):
                self.set_status(typed, error=True)
                return
            if self.query_one("#status", Static).has_class("error"):
                self.set_status("")  # the field's own error, now put right
            if typed == getattr(self.spec, name):
                return
            setattr(self.spec, name, typed)
        else:
            return
        self.changed()
        self.verified = False
        self._refresh_info()

    def _refresh_info(self) -> None:
        info = draft_info(self.spec)
        theme = "ansi_dark" if self.app.current_theme.dark else "ansi_light"
        self.query_one("#info-json", Static).update(
            Syntax(
                json.dumps(info, indent=4, ensure_ascii=False), "json", theme=theme, word_wrap=True
            )
        )
        issues = live_check(self.spec)
        state = self.query_one("#schema-state", Static)
        state.set_class(bool(issues), "error")
        if issues:
            state.update("\n".join(f"✗ {i.path}: {i.message}" for i in issues[:6]))
        else:
            state.update("✓ info.json matches the schema")

    @on(Button.Pressed, "#verify")
    def _verify_pressed(self) -> None:
        self.query_one("#verify", Button).disabled = True
        self.refresh_bindings()
        log = self.query_one("#verify-log", RichLog)
        log.clear()
        log.display = True
        self.log_start("Verify: static checks and the Docker proof")
        self._activity = "verifying"
        self.set_status("verifying: building, recording, proving in Docker…")
        self._verify(copy.deepcopy(self.spec))

    @work(thread=True, exclusive=True, group="check", exit_on_error=False)
    def _verify(self, spec: TaskSpec) -> None:
        from lmr_author.authoring.save import fill_identity, run_save_checks

        def say(line: str) -> None:
            self.post_message(self.VerifyLog(line))

        try:
            # The same identity the save will write, so its content key matches this one.
            for filled in fill_identity(spec):
                say(f"set {filled}")
            check = run_save_checks(spec, on_step=say, on_log=say)
        except UserError as error:
            self.post_message(self.Checked(None, error=str(error)))
            return
        self.post_message(self.Checked(check, filled=spec))

    @on(VerifyLog)
    def _verify_log(self, message: VerifyLog) -> None:
        self.query_one("#verify-log", RichLog).write(message.line)
        self.log_progress(self._activity, message.line)

    @on(Checked)
    def _checked(self, message: Checked) -> None:
        self.query_one("#verify", Button).disabled = False
        self.refresh_bindings()
        state = self.query_one("#check-state", Static)
        check = message.check
        if message.filled is not None:
            for name in ("instance_id", "year", "paper_name"):
                value = getattr(message.filled, name)
                if getattr(self.spec, name) != value:
                    setattr(self.spec, name, value)
                    if name == "paper_name":
                        self.refresh_title()
                    else:
                        self.query_one(f"#field-{name}", Input).value = str(value)
            self.changed()
            self._refresh_info()
        if message.error:
            state.update("could not verify: see the log (ctrl+l)")
            self.set_status(message.error, error=True)
            return
        # A Verify just done says the time its status counted; a remembered one none.
        took = self.work_seconds() if message.timed else None
        state.update(describe_check(check, took))
        state.set_class(check is not None and not check.verified, "error")
        kept = self.authoring.mutation_reports
        if message.remembered and kept is not None and kept[0] == message.key:
            self._reports = kept[1]  # tested this session, on this very content
            self._mutation_took = None
            self._show_mutation_first()
            self._show_mutation(say=False)
        self._show_strength(check is not None and check.verified)
        if check is None:
            return
        findings = [f"✗ static: {reason}" for reason in check.static_errors]
        findings += [f"✗ Docker: {reason}" for reason in check.dynamic_errors]
        findings += [f"⚠ warning: {reason}" for reason in check.static_warnings]
        shown = self.query_one("#findings", Static)
        shown.update("\n".join(findings))
        shown.display = bool(findings)
        self.verified = check.verified
        if message.remembered:
            return
        if check.verified:
            when = f" in {took} s" if took is not None else ""
            self.set_status(f"verified ✓ golden passes, masked fails{when}; " + self._strength())
            # The verdict and how strong it is, in sight at 80×24 (the status line is cut).
            self.query_one("#strength").scroll_visible(animate=False)
        else:
            self.set_status(
                "verification failed: " + "\n".join(check.reasons or ["(no reason given)"]),
                error=True,
            )

    class Mutated(Message):
        """The mutation reports of the draft's goals (or why they could not be made)."""

        def __init__(
            self,
            reports: list[MutationReport],
            error: str = "",
            key: str = "",
            *,
            timed: bool = False,
        ) -> None:
            super().__init__()
            self.reports = reports
            self.error = error
            self.key = key  # the content key of the draft tested
            #: The result of this step's own run, whose time the status line counted.
            self.timed = timed

    @on(Button.Pressed, "#mutants")
    def _mutants_pressed(self) -> None:
        self.query_one("#mutants", Button).disabled = True
        self.refresh_bindings()
        log = self.query_one("#verify-log", RichLog)
        log.clear()
        log.display = True
        self.log_start("Mutation test")
        self._activity = "mutation test"
        self.set_status("mutation test: building the task, scoring each mutant in Docker…")
        self._mutate(copy.deepcopy(self.spec))

    @work(thread=True, exclusive=True, group="check", exit_on_error=False)
    def _mutate(self, spec: TaskSpec) -> None:
        from lmr_author.authoring.save import content_key, fill_identity, run_mutation_checks

        def say(line: str) -> None:
            self.post_message(self.VerifyLog(line))

        try:
            # The identity Save will write, so that the verification is Save's to reuse.
            for filled in fill_identity(spec):
                say(f"set {filled}")
            key = content_key(spec)
            # On the build Save writes, proven first when there is none: a passing
            # mutation run is a verification, and the scores go into the saved task.
            check, reports = run_mutation_checks(spec, on_step=say, on_log=say)
        except UserError as error:
            self.post_message(self.Mutated([], str(error)))
            return
        self.post_message(self.Checked(check, filled=spec, timed=False))
        if not check.verified:
            self.post_message(self.Mutated([], "the mutation test needs a verified task"))
            return
        self.post_message(self.Mutated(reports, key=key, timed=True))

    @on(Button.Pressed, "#strengthen")
    def _strengthen_pressed(self) -> None:
        self.query_one("#strengthen", Button).disabled = True
        log = self.query_one("#verify-log", RichLog)
        log.clear()
        log.display = True
        self.log_start("Strengthen: record what the golden code does under the tests")
        self._activity = "strengthening"
        self.set_status("strengthen: recording the tests' calls of the goal in Docker…")
        self._strengthen(copy.deepcopy(self.spec))

    @work(thread=True, exclusive=True, group="check", exit_on_error=False)
    def _strengthen(self, spec: TaskSpec) -> None:
        from lmr_author.authoring.save import content_key, fill_identity, strengthen_verified

        def say(line: str) -> None:
            self.post_message(self.VerifyLog(line))

        try:
            fill_identity(spec)
            key = content_key(spec)
            outcome = strengthen_verified(spec, on_step=say)
        except UserError as error:
            self.post_message(self.Mutated([], str(error)))
            return
        problems = [
            f"{item.qualname}: {item.error}" for item in outcome.implementations if item.error
        ] + ([outcome.error] if outcome.error else [])
        for problem in problems:
            say(f"not strengthened: {problem}")
        reports = [item.after for item in outcome.implementations if item.after is not None]
        why = "" if reports else ("not strengthened: " + "; ".join(problems))
        self.post_message(self.Mutated(reports, why, key=key, timed=True))

    @on(Mutated)
    def _mutated(self, message: Mutated) -> None:
        self.query_one("#mutants", Button).disabled = False
        self.refresh_bindings()
        self.query_one("#strengthen", Button).disabled = False
        if message.error:
            self.set_status(message.error, error=True)
            return
        self._reports = message.reports
        # Its time by the status line's clock, as Build, Record and Verify say theirs.
        self._mutation_took = self.work_seconds() if message.timed else None
        self.authoring.mutation_reports = (message.key, message.reports)
        self._show_mutation_first()
        self._show_mutation()
        if self.query_one("#strengthen").display:  # the warning and its remedy in sight
            self.query_one("#strength").scroll_visible(animate=False, top=True)
        elif self._survivors():  # the work now: each survivor, killed or marked
            self.action_survivors()
        else:
            self.query_one("#mutation").scroll_visible(animate=False, top=True)

    def _show_mutation_first(self) -> None:
        """The mutation test's result above the fields: its survivors are the step's work
        once it has run (at 80×24 they were a dozen Tabs down)."""
        mutation = self.query_one("#mutation")
        mutation.display = True
        body = self.query_one("#step-body")
        if body.children.index(mutation) > body.children.index(self.query_one("#check-panes")):
            body.move_child(mutation, before=self.query_one("#check-panes"))

    def action_survivors(self) -> None:
        """ctrl+o: to the survivors, the first highlighted, its diff in sight."""
        listing = self.query_one("#survivor-list", OptionList)
        if not listing.display or not listing.option_count:
            return
        if listing.highlighted is None:
            listing.highlighted = 0
        self.query_one("#mutation").scroll_visible(animate=False, top=True)
        listing.focus(scroll_visible=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "survivors":  # in the footer only while there are survivors
            return bool(self._survivors())
        if action == "mutation_test":  # in the footer only while it can run
            return self._can_mutate()
        return True

    def _can_mutate(self) -> bool:
        """Neither a mutation test nor a Verify running (one would cancel the other)."""
        return not (
            self.query_one("#mutants", Button).disabled
            or self.query_one("#verify", Button).disabled
        )

    def action_mutation_test(self) -> None:
        """ctrl+g (and the palette): the mutation test, as its button does."""
        if self._can_mutate():
            self._mutants_pressed()

    def palette_commands(self) -> Iterable[SystemCommand]:
        if self._can_mutate():
            yield SystemCommand(
                "Mutation test",
                "Score the tests against mutants of the goal, in Docker (ctrl+g)",
                self.action_mutation_test,
            )

    def _survivors(self) -> list[tuple[int, Mutant]]:
        """(implementation index, mutant) of the survivors not marked equivalent yet."""
        found = []
        for report in self._reports:
            goal = self.spec.goals[report.impl_index - 1]
            marked = {item.get("mutant") for item in goal.equivalent_mutants}
            found += [(report.impl_index, m) for m in report.survivors if m.key not in marked]
        return found

    def _counts(self, report: MutationReport) -> tuple[int, int]:
        return mutation_counts(self.spec, report)

    def _strength(self) -> str:
        return strength_line(self.spec, self._reports)

    def _show_strength(self, verified: bool | None = None) -> None:
        if verified is not None:
            self.verified_shown = verified
        shown = self.query_one("#strength", Static)
        shown.display = self.verified_shown or bool(self._reports)
        text = self._strength()
        offer = text.startswith("⚠") and self._own_tests()
        if offer:
            text += "\nStrengthen records the golden code's calls under the repository's own tests"
        shown.update(text)
        shown.set_class(text.startswith("⚠"), "warning")
        self.query_one("#strengthen").display = bool(offer)

    def _own_tests(self) -> bool:
        """Whether a goal's tests are the repository's own (no driver recorded): what
        `lmr-author strengthen` adds a replay test to."""
        from lmr_author.authoring.build import own_tests

        return bool(own_tests(self.spec))

    def _show_mutation(self, *, say: bool = True) -> None:
        self._show_strength()
        lines = []
        for report in self._reports:
            goal = self.spec.goals[report.impl_index - 1]
            counted, now = self._counts(report)
            score = report.killed / counted if counted else 1.0
            lines.append(
                f"{goal.goal_function}: {report.killed}/{counted} mutants killed ({score:.0%})"
                + (f", {now} equivalent" if now else "")
                + (f", {report.errors} not run" if report.errors else "")
            )
        took = f" (measured in {self._mutation_took} s)" if self._mutation_took is not None else ""
        self.query_one("#mutation-score", Static).update(
            "Mutation score: " + "; ".join(lines) + took
        )
        survivors = self._survivors()
        listing = self.query_one("#survivor-list", OptionList)
        listing.clear_options()
        for impl_index, mutant in survivors:
            name = self.spec.goals[impl_index - 1].goal_function
            listing.add_option(
                Option(f"{name}: {mutant.key} {mutant.operator}: {mutant.description}")
            )
        listing.display = bool(survivors)
        self.query_one("#equivalent-row").display = bool(survivors)
        self.query_one("#add-fixture", Button).display = bool(survivors)
        if survivors:
            listing.highlighted = 0
            self._show_survivor(0)
        else:
            self.query_one("#survivors", Static).update("every counted mutant was killed ✓")
        self.refresh_bindings()  # ctrl+o in the footer while there are survivors
        if not say:
            return
        strength = self._strength()
        if strength.startswith("⚠") and self.query_one("#strengthen").display:
            self.set_status(f"{strength}: Strengthen the tests, or add fixtures", error=True)
            return
        if strength.startswith("⚠"):
            self.set_status(f"{strength}: add fixtures that kill them", error=True)
            return
        self.set_status(
            f"mutation: {len(survivors)} mutant(s) survive: add a fixture that kills one, "
            "or mark it equivalent with why"
            if survivors
            else "mutation: every counted mutant is killed ✓"
        )

    @on(OptionList.OptionHighlighted, "#survivor-list")
    def _survivor_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_survivor(event.option_index)

    def _show_survivor(self, position: int) -> None:
        survivors = self._survivors()
        if not 0 <= position < len(survivors):
            return
        _, mutant = survivors[position]
        theme = "ansi_dark" if self.app.current_theme.dark else "ansi_light"
        self.query_one("#survivors", Static).update(
            Syntax(
                f"# survivor {mutant.key}: {mutant.description}\n{mutant.diff}",
                "diff",
                theme=theme,
                word_wrap=True,
            )
        )

    def _highlighted_survivor(self) -> tuple[int, Mutant] | None:
        survivors = self._survivors()
        position = self.query_one("#survivor-list", OptionList).highlighted
        if position is None or not 0 <= position < len(survivors):
            return None
        return survivors[position]

    @on(Button.Pressed, "#mark-equivalent")
    @on(Input.Submitted, "#equivalent-reason")
    def _mark_equivalent(self) -> None:
        chosen = self._highlighted_survivor()
        reason_input = self.query_one("#equivalent-reason", Input)
        reason = reason_input.value.strip()
        if chosen is None:
            return
        if not reason:
            self.set_status("Say why the mutant computes the same results.", error=True)
            reason_input.focus()
            return
        impl_index, mutant = chosen
        goal = self.spec.goals[impl_index - 1]
        goal.equivalent_mutants = [
            *goal.equivalent_mutants,
            {
                "mutant": mutant.key,
                "change": f"{mutant.operator}: {mutant.description}",
                "reason": reason,
            },
        ]
        self.changed()
        reason_input.value = ""
        self._refresh_info()
        self._show_mutation()
        self.set_status(f"mutant {mutant.key} marked equivalent (stored in info.json)")
        # The next survivor one ↓ away (in the emptied reason box ↓ did nothing, and a
        # Tab pressed the button with no reason); none left: the score in sight, the
        # focus back where the mutation test was started (the reason box is hidden).
        if self._survivors():
            self.action_survivors()
        else:
            self.query_one("#mutants", Button).focus(scroll_visible=False)
            self.query_one("#mutation").scroll_visible(animate=False, top=True)

    @on(Button.Pressed, "#add-fixture")
    def _add_fixture(self) -> None:
        # Another call in the driver that tells the survivor apart is the fixture to add.
        from lmr_author.tui.new_task.steps import STEPS

        chosen = self._highlighted_survivor()
        if chosen is not None:
            impl_index, mutant = chosen
            self.authoring.survivor_hint = SurvivorHint(
                impl_index - 1, mutant.key, f"{mutant.operator}: {mutant.description}", mutant.diff
            )
        self.authoring.go_to([name for name, _ in STEPS].index("tests"))

    def can_leave(self) -> str | None:
        if not self.spec.folder_name:
            return "Give the task a folder name."
        return None
