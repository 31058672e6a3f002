"""Pilot tests of what a new annotator's trial at 80×24 found (issue 30): the base image
option reaches the app, an error never covers the status line nor outlives its step,
the driver starts from a marked import skeleton, the mask choice is visible, the build
clock ticks, a saved draft is never resumed, Tab-then-type lands in the new field, and
Verify says how strong the tests are."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, load_spec, save_spec
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.new_task.steps import STEPS
from tests.tui.new_task.conftest import settle

SMALL = (80, 24)


def _app(repo: Path, step: str, name: str = "", **fields: object) -> NewTaskApp:
    spec = TaskSpec(
        source=str(repo),
        repo_path=str(repo),
        step=step,
        goals=[GoalSpec("toy/losses.py", "margin_loss", instruction="Implement it.")],
    )
    for key, value in fields.items():
        setattr(spec, key, value)
    draft = name or f"trial-{step}"
    save_spec(spec, draft_path(draft))
    return NewTaskApp(benchmark_dir=Path("bench"), draft_name=draft)


def _screen_lines(app: NewTaskApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def _text(app: NewTaskApp, widget_id: str) -> str:
    return re.sub(r"\s+", " ", str(app.screen.query_one(f"#{widget_id}", Static).visual))


# -- 1. --base-image ------------------------------------------------------------------


def test_new_task_hands_its_base_image_option_to_the_app(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import lmr_author.tui.new_task as app_package
    from lmr_author.cli import main

    seen: dict[str, object] = {}

    def run(benchmark_dir: Path, **options: object) -> int:
        seen.update(options, benchmark_dir=benchmark_dir)
        return 0

    monkeypatch.setattr(app_package, "run_new_task", run)
    assert main(["new-task", "--into", str(tmp_path), "--base-image", "lmr-standin:recipe"]) == 0
    assert seen["base_image"] == "lmr-standin:recipe"


async def test_the_base_image_field_shows_the_option_and_edits_the_draft(toy_repo: Path) -> None:
    save_spec(
        TaskSpec(source=str(toy_repo), repo_path=str(toy_repo), step="environment"),
        draft_path("trial-base"),
    )
    app = NewTaskApp(benchmark_dir=Path("bench"), draft_name="trial-base", base_image="img:1")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        field = app.screen.query_one("#base-image", Input)
        assert field.value == "img:1" and app.spec.base_image == "img:1"
        assert field.region.bottom <= SMALL[1] - 2  # on screen at 80×24, above the nav
        assert "python:3.11-slim" in field.placeholder  # what an empty field builds from
        field.value = "other:2"
        await settle(pilot)
    assert load_spec(draft_path("trial-base")).base_image == "other:2"
    # Started again without the option: the draft keeps its own.
    app = NewTaskApp(benchmark_dir=Path("bench"), draft_name="trial-base")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert app.screen.query_one("#base-image", Input).value == "other:2"


# -- 7. Tab, then type --------------------------------------------------------------------


def _texts(app: NewTaskApp) -> dict[str, str]:
    from textual.widgets import TextArea

    found = {f"input#{w.id}": w.value for w in app.screen.query(Input)}
    found.update({f"area#{w.id}": w.text for w in app.screen.query(TextArea)})
    return found


@pytest.mark.parametrize("step", [name for name, _ in STEPS])
async def test_keys_typed_right_after_tab_go_to_the_newly_focused_field(
    toy_repo: Path, step: str
) -> None:
    from textual import events

    app = _app(toy_repo, step, folder_name="07-Toy")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        left = app.focused
        before = _texts(app)
        # As a terminal delivers them: all three read before any is handled.
        for key, char in (("tab", "\t"), ("z", "z"), ("q", "q")):
            app.post_message(events.Key(key, char))
        await settle(pilot)
        now = app.focused
        if step == "goal":
            # Tab leaves the search for the function list, which holds no text: what is
            # typed there goes on with the search (the Goal step's help says so).
            assert now is left and _texts(app)["input#fn-search"].endswith("zq")
            return
        assert now is not left
        changed = {name for name, text in _texts(app).items() if before.get(name) != text}
        widget = f"{'input' if isinstance(now, Input) else 'area'}#{getattr(now, 'id', '')}"
        assert changed <= {widget}, (left, now, changed)
        if widget in changed:
            assert "zq" in _texts(app)[widget]


# -- 2. errors fit, and go with their step ----------------------------------------------


async def test_a_long_verify_error_leaves_the_status_line_and_goes_with_its_step(
    toy_repo: Path,
) -> None:
    from textual.widgets._toast import Toast

    from lmr_author.tui.new_task.steps import StepScreen
    from lmr_author.tui.new_task.steps.check import CheckStep

    app = _app(toy_repo, "check", folder_name="07-Toy")
    reasons = [
        f"dynamic: test {n} of unit_test_1.py fails on golden code: " + "x" * 90
        for n in range(1, 12)
    ]
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CheckStep)
        screen.set_status("verification failed: " + "\n".join(reasons), error=True)
        for _ in range(50):
            await pilot.pause(0.02)
            toasts = list(app.screen.query(Toast))
            if toasts and toasts[0].region.height:
                break
        assert len(toasts) == 1
        toast, nav = toasts[0].region, app.screen.query_one("#nav").region
        assert toast.height <= SMALL[1] // 4, toast  # the form stays in sight
        assert toast.bottom <= nav.y, (toast, nav)  # the status line too
        assert [n.message[-6:] for n in app._notifications] == ["ctrl+l"]  # the rest: the log
        assert "verification failed" in _text(app, "status")
        # A new verify starts: the old error goes.
        screen.log_start("Verify")
        await pilot.pause()
        assert not app._notifications
        screen.set_status("verification failed: " + "\n".join(reasons), error=True)
        await pilot.pause()
        assert app._notifications
        await pilot.press("ctrl+b")  # to the Tests step
        await settle(pilot)
        assert isinstance(app.screen, StepScreen) and app.screen.STEP_NUMBER == 7
        assert not app._notifications and not list(app.screen.query(Toast))


# -- 4. the mask choice ------------------------------------------------------------------


def _label_style(app: NewTaskApp, words: str) -> tuple[str, bool, object]:
    """The mark before ``words`` on screen, whether they are bold, and their background."""
    for strip in app.screen._compositor.render_strips():
        text = strip.text
        if words in text:
            mark = text[: text.index(words)].rstrip().replace("(chosen)", "").rstrip()[-1]
            for segment in strip:
                if words in segment.text and segment.style is not None:
                    return mark, bool(segment.style.bold), segment.style.bgcolor
    raise AssertionError(f"{words!r} not on screen")


async def test_the_chosen_mask_style_and_the_cursor_are_visibly_different(
    toy_repo: Path,
) -> None:
    from textual.widgets import RadioSet

    app = _app(toy_repo, "mask")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        app.screen.set_focus(None)  # the choice has the focus on arrival (one goal)
        await pilot.pause()
        lmr, todo = "lmr: docstring", "todo: docstring"
        assert _label_style(app, lmr)[:2] == ("◉", True)
        assert _label_style(app, todo)[:2] == ("○", False)
        # Unfocused, the cursor is not drawn: nothing but the choice stands out.
        assert _label_style(app, lmr)[2] == _label_style(app, todo)[2]
        app.screen.query_one("#mask-style", RadioSet).focus()
        await pilot.press("down")
        await pilot.pause()
        # Focused: the cursor (on todo) has its own background; lmr is still the choice.
        assert _label_style(app, todo)[2] != _label_style(app, lmr)[2]
        assert _label_style(app, lmr)[:2] == ("◉", True)
        await pilot.press("enter")
        await settle(pilot)
        assert app.spec.goals[0].mask_style == "todo"
        assert _label_style(app, todo)[:2] == ("◉", True)
        assert _label_style(app, lmr)[:2] == ("○", False)


# -- 5. the build clock ------------------------------------------------------------------


async def test_the_clock_of_long_work_ticks_between_log_lines_until_the_work_ends(
    toy_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from lmr_author.tui.new_task.steps import base
    from lmr_author.tui.new_task.steps.environment import EnvironmentStep

    now = [1000.0]
    monkeypatch.setattr(base, "_clock", lambda: now[0])
    app = _app(toy_repo, "environment")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, EnvironmentStep)
        written = threading.Event()
        # A build in its last phase: the image is being written, the engine says nothing.
        screen.run_worker(written.wait, thread=True, group="build")
        screen.log_start("Image build")
        screen.post_message(EnvironmentStep.BuildLog("#12 exporting layers"))
        await pilot.pause()
        assert "building (0 s): #12 exporting layers" in _text(app, "status")

        async def shows(text: str) -> bool:
            for _ in range(60):  # the clock is ours; only the 1 s tick is waited for
                if text in _text(app, "status"):
                    return True
                await pilot.pause(0.05)
            return False

        now[0] += 95
        assert await shows("building (95 s): #12 exporting layers")
        now[0] += 40
        assert await shows("building (135 s): #12 exporting layers")
        written.set()  # the build returned: the step says how it went, the clock stops
        await settle(pilot)
        screen.set_status("image built ✓ (140 s)")
        now[0] += 60
        await pilot.pause(1.5)
        assert "image built ✓ (140 s)" in _text(app, "status")


# -- 3. the driver editor ------------------------------------------------------------------


@pytest.mark.parametrize(("size", "lines"), [(SMALL, 10), ((200, 50), 20)])
async def test_a_new_goal_s_driver_starts_from_a_marked_template_with_room(
    toy_repo: Path, size: tuple[int, int], lines: int
) -> None:
    from textual.widgets import TextArea

    from lmr_author.tui.new_task.steps.tests import TestsStep

    app = _app(toy_repo, "tests", name=f"trial-driver-{size[0]}")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        area = app.screen.query_one("#driver", TextArea)
        assert area.text.startswith("# TEMPLATE")
        assert "from toy.losses import margin_loss\n" in area.text
        assert "# margin_loss(chosen, rejected)\n" in area.text
        assert app.screen.query_one("#driver-note", Static).display
        assert app.spec.goals[0].driver == ""  # a template is no driver
        screen = app.screen
        assert isinstance(screen, TestsStep)
        assert "replace the template" in (screen.can_leave() or "")
        await pilot.press("ctrl+r")  # Record: refused, nothing runs
        await pilot.pause()
        assert "nothing to record" in _text(app, "status")
        # Room for the driver, below it nothing hidden that matters, Record in sight.
        nav = app.screen.query_one("#nav").region
        assert area.region.height - 2 >= lines and area.region.bottom <= nav.y
        assert app.screen.query_one("#record").region.y == nav.y
        # The annotator's first edit makes it theirs.
        area.focus()
        call = area.text.splitlines().index("# margin_loss(chosen, rejected)")
        area.move_cursor((call, 0))
        await pilot.press("delete", "delete")
        await pilot.pause()
        assert "\nmargin_loss(chosen, rejected)\n" in app.spec.goals[0].driver
        assert not app.screen.query_one("#driver-note", Static).display


async def test_a_driver_written_or_saved_is_never_replaced_by_the_template(
    toy_repo: Path,
) -> None:
    from textual.widgets import TextArea

    from lmr_author.tui.new_task.steps.tests import TestsStep

    saved = "from toy.losses import margin_loss\nmargin_loss([1.0], [0.5])\n"
    app = _app(toy_repo, "tests", name="trial-saved-driver")
    app.spec.goals[0].driver = saved
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        area = app.screen.query_one("#driver", TextArea)
        assert area.text == saved
        assert not app.screen.query_one("#driver-note", Static).display
        # A template that arrives late finds a driver typed meanwhile: it is dropped.
        area.load_text("")
        await pilot.pause()
        area.insert("x = 1\n")
        await pilot.pause()
        app.screen.post_message(TestsStep.Templated(0, "# TEMPLATE: ...\n"))
        await pilot.pause()
        assert area.text == "x = 1\n" and app.spec.goals[0].driver == "x = 1\n"


# -- 8. how strong the verified tests are ------------------------------------------------


def _on_screen(app: NewTaskApp, widget_id: str) -> str:
    """The text a widget shows inside the step body's viewport ("" when scrolled away)."""
    region = app.screen.query_one(f"#{widget_id}").region
    body = app.screen.query_one("#step-body").region
    if not region.height or region.y < body.y or region.bottom > body.bottom:
        return ""
    lines = _screen_lines(app)[region.y : region.bottom]
    return re.sub(r"\s+", " ", " ".join(line[region.x : region.right] for line in lines))


async def test_verify_says_how_strong_the_tests_are(toy_repo: Path) -> None:
    from lmr_author.authoring.save import SaveCheck
    from lmr_author.mutation.mutants import Mutant
    from lmr_author.mutation.score import MutationReport
    from lmr_author.tui.new_task.steps.check import CheckStep

    app = _app(toy_repo, "check", folder_name="07-Toy", year=2025)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CheckStep)
        screen.post_message(CheckStep.Checked(SaveCheck(key="k", verified=True, seconds=3)))
        await settle(pilot)
        assert "verified ✓" in _text(app, "check-state")
        shown = _on_screen(app, "strength")
        assert "mutation test not run" in shown and "bugs in the goal" in shown, shown
        assert "verified ✓" in _text(app, "status")

        survivors = [
            Mutant(n, "constant", f"{n}.0 → 2.0", b"", diff=f"-    x = {n}.0\n+    x = 2.0\n")
            for n in range(20)
        ]
        weak = MutationReport("07-Toy", 1, total=21, killed=1, survivors=survivors)
        screen.post_message(CheckStep.Mutated([weak]))
        await settle(pilot)
        strength = app.screen.query_one("#strength", Static)
        assert "⚠ weak tests: mutants killed 1/21" in _text(app, "strength")
        assert "warning" in strength.classes
        assert "⚠ weak tests" in _text(app, "status")
        # Marked equivalent: counted apart, and the score follows.
        app.spec.goals[0].equivalent_mutants = [
            {"mutant": m.key, "change": "c", "reason": "r"} for m in survivors[:12]
        ]
        screen._show_mutation()
        await pilot.pause()
        assert _text(app, "strength").startswith("⚠ weak tests: mutants killed 1/9, 12 equivalent")
        app.spec.goals[0].equivalent_mutants = [
            {"mutant": m.key, "change": "c", "reason": "r"} for m in survivors[:19]
        ]
        screen._show_mutation()
        await pilot.pause()
        assert _text(app, "strength") == "mutants killed 1/2, 19 equivalent apart"
        assert "warning" not in strength.classes


async def test_a_strong_score_is_said_without_warning_and_kept_for_the_same_content(
    toy_repo: Path,
) -> None:
    from lmr_author.mutation.score import MutationReport
    from lmr_author.tui.new_task.steps.check import CheckStep

    app = _app(toy_repo, "check", folder_name="07-Toy", year=2025)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        from lmr_author.authoring.save import content_key

        strong = MutationReport("07-Toy", 1, total=10, killed=10)
        app.screen.post_message(CheckStep.Mutated([strong], key=content_key(app.spec)))
        await settle(pilot)
        assert _text(app, "strength") == "mutants killed 10/10 ✓"
        await pilot.press("ctrl+b")
        await settle(pilot)
        app.go_to(7)  # back to Check: the same content, the same score
        await settle(pilot)
        assert _text(app, "strength") == "mutants killed 10/10 ✓"


# -- 6. a saved task's draft ---------------------------------------------------------------


async def test_a_saved_draft_stays_finished_whatever_is_written_after(
    toy_repo: Path, tmp_path: Path
) -> None:
    import copy
    import threading

    bench = tmp_path / "bench"
    app = _app(toy_repo, "save", name="trial-saved", folder_name="07-Toy", benchmark_dir=str(bench))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        before = copy.deepcopy(app.spec)  # an autosave of the draft from before the save
        app._draft_version += 1
        late = app._draft_version
        # The save's worker thread: the task is written, the draft marked at once.
        worker = threading.Thread(target=app.draft_finished, args=(copy.deepcopy(app.spec),))
        worker.start()
        worker.join()
        assert load_spec(draft_path("trial-saved")).finished
        app._write_draft(late, before)  # the older snapshot lands after it
        assert load_spec(draft_path("trial-saved")).finished
        app.spec.paper_url = "https://example.org/typed-after-the-save"
        app.autosave()
        await settle(pilot)
        # Quit before the step heard of the save: the draft is still finished.
    assert load_spec(draft_path("trial-saved")).finished
    again = NewTaskApp(benchmark_dir=Path("elsewhere"), draft_name="trial-saved")
    async with again.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert again.spec.step == "source" and not again.spec.folder_name
        assert again.benchmark_dir == bench  # where tasks go is kept
        assert f"last task saved: 07-Toy in {bench}" in _text(again, "status")
