"""Pilot tests of a new user's findings in the new-task app: Tab leaves the plain-text
editors and the footer says how to leave the driver editor, every step focuses its
first input, a long status message is whole on screen at 80×24, and a missing year is
flagged on the check step before Verify."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import Button, Input, Static, TabbedContent, TextArea

from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, save_spec
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.new_task.steps import STEPS, StepScreen
from lmr_author.tui.new_task.steps._status_line import MAX_LINES
from lmr_author.util.errors import UserError
from tests.tui.new_task.conftest import settle

SMALL = (80, 24)


_settle = settle


def _app(repo: Path, step: str, **fields: object) -> NewTaskApp:
    spec = TaskSpec(
        source=str(repo),
        repo_path=str(repo),
        step=step,
        goals=[
            GoalSpec(
                "toy/losses.py",
                "margin_loss",
                instruction="Implement it.",
                driver="margin_loss([1.0], [0.5])\n",
            )
        ],
    )
    for name, value in fields.items():
        setattr(spec, name, value)
    save_spec(spec, draft_path(f"findings-{step}"))
    return NewTaskApp(benchmark_dir=Path("bench"), draft_name=f"findings-{step}")


def _screen_text(app: NewTaskApp, widget_id: str | None = None) -> str:
    """What the terminal shows (of one widget's region), whitespace collapsed."""
    lines = [strip.text for strip in app.screen._compositor.render_strips()]
    if widget_id is not None:
        region = app.screen.query_one(f"#{widget_id}").region
        lines = [line[region.x : region.right] for line in lines[region.y : region.bottom]]
    return re.sub(r"\s+", " ", " ".join(lines))


@pytest.mark.parametrize(
    ("editor", "tab"), [("requirements", None), ("dockerfile", "tab-dockerfile")]
)
async def test_tab_leaves_the_requirements_and_dockerfile_editors(
    toy_repo: Path, editor: str, tab: str | None
) -> None:
    app = _app(toy_repo, "environment")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        if tab:
            app.screen.query_one("#env-tabs", TabbedContent).active = tab
            await pilot.pause()
        area = app.screen.query_one(f"#{editor}", TextArea)
        area.focus()
        area.move_cursor((0, 0))
        before = area.text
        await pilot.press("tab")
        await pilot.pause()
        assert app.screen.focused is not area
        assert area.text == before  # no spaces inserted


async def test_tab_never_edits_the_driver_and_ctrl_t_indents(toy_repo: Path) -> None:
    """Tabbing through the Tests step once indented the driver's first line and broke
    it silently: Tab moves the focus, in the driver as in every field."""
    app = _app(toy_repo, "tests")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        area = app.screen.query_one("#driver", TextArea)
        before = area.text
        for _ in range(8):  # round the whole step, twice over
            await pilot.press("tab")
            await pilot.pause()
            assert area.text == before
        area.focus()
        area.move_cursor((0, 0))
        await pilot.press("tab")
        await pilot.pause()
        assert area.text == before and app.screen.focused is not area
        area.focus()
        area.move_cursor((0, 0))
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert area.text == "    " + before
        footer = _screen_text(app).rsplit("Next ▶", 1)[-1]
        assert "^t Indent" in footer, footer


@pytest.mark.parametrize(
    ("step", "first"),
    [
        ("source", "source"),
        ("paper", "pdf"),
        ("goal", "fn-search"),
        # One goal: nothing to choose, the step's own field first.
        ("mask", "mask-style"),
        ("instruction", "instruction"),
        ("environment", "base-image"),
        ("tests", "driver"),
        ("check", "field-folder_name"),
        ("save", "into"),
    ],
)
async def test_a_resumed_step_focuses_its_first_input(
    toy_repo: Path, step: str, first: str
) -> None:
    app = _app(toy_repo, step)
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        focused = app.screen.focused
        assert focused is not None and focused.id == first, (step, focused)


async def test_typing_at_once_lands_in_the_field_of_each_step_opened(toy_repo: Path) -> None:
    app = _app(toy_repo, "source", source="")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        await pilot.press(*"/tmp/toyrepo")
        assert app.screen.query_one("#source", Input).value == "/tmp/toyrepo"
        app.go_to(1)  # the paper step, opened from the previous one
        await _settle(pilot)
        await pilot.press(*"p.pdf")
        assert app.screen.query_one("#pdf", Input).value.endswith("p.pdf")


@pytest.mark.parametrize("step", ["source", "tests", "check"])
async def test_a_long_error_is_in_the_status_line_and_whole_in_a_notification(
    toy_repo: Path, step: str
) -> None:
    error = UserError(
        "the task has no year and the paper's PDF does not say one",
        hint="Set year (the paper's publication year).",
    )
    app = _app(toy_repo, step)
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, StepScreen)
        screen.set_status(str(error), error=True)
        await pilot.pause()
        # In the status, wrapped over up to three lines (the step keeps its room); when
        # it does not fit there, whole in a notification.
        status = app.screen.query_one("#status", Static)
        assert status.region.height <= MAX_LINES
        shown = _screen_text(app, "status").strip()
        assert shown.startswith("✗ the task has no year and the paper's PDF does not say"), shown
        notes = [n.message for n in app._notifications]
        assert notes == ([] if shown == f"✗ {error}" else [str(error)]), (shown, notes)


async def test_without_an_editor_the_whole_advice_is_on_screen(
    toy_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("VISUAL", "EDITOR"):
        monkeypatch.delenv(name, raising=False)
    app = _app(toy_repo, "tests")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        app.screen.query_one("#edit").press()  # type: ignore[attr-defined]
        await pilot.pause()
        # Whole in the status line (it wraps): nothing to hide in a notification.
        advice = "Set $EDITOR (or $VISUAL) to edit in your own editor."
        assert advice in _screen_text(app, "status")


async def test_the_check_step_flags_a_missing_year_before_verify(
    toy_repo: Path, toy_paper: Path
) -> None:
    # The test paper's PDF has no date in its metadata: Save could not fill the year.
    app = _app(toy_repo, "check", folder_name="07-Toy", paper_pdf=str(toy_paper))
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        state = app.screen.query_one("#schema-state", Static)
        shown = str(state.render())
        assert "$.year" in shown and "Set year" in shown, shown
        assert "$.instance_id" not in shown  # filled from the folder name 07-
        year = app.screen.query_one("#field-year", Input)
        year.focus()
        await pilot.press(*"2024")
        await pilot.pause()
        assert str(state.render()) == "✓ info.json matches the schema"
        assert app.spec.year == 2024


async def test_the_check_step_flags_a_missing_instance_id(toy_repo: Path, toy_paper: Path) -> None:
    app = _app(toy_repo, "check", folder_name="Toy", year=2024, paper_pdf=str(toy_paper))
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        shown = str(app.screen.query_one("#schema-state", Static).render())
        assert "$.instance_id" in shown and "Set instance_id" in shown, shown


@pytest.mark.parametrize("size", [SMALL, (200, 50)])
@pytest.mark.parametrize("step", [name for name, _ in STEPS])
async def test_every_step_shows_its_primary_action(
    toy_repo: Path, step: str, size: tuple[int, int]
) -> None:
    """Build, Record, Verify, Save...: on the nav line, on screen at 80×24, never below
    the fold whatever the step's body holds; ctrl+r presses it."""
    app = _app(toy_repo, step)
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, StepScreen)
        nav = screen.query_one("#nav").region
        assert nav.bottom <= size[1] - 1 and nav.height <= MAX_LINES  # above the footer
        if screen.PRIMARY is None:
            return
        button = screen.query_one(f"#{screen.PRIMARY[0]}", Button)
        region = button.region
        assert region.height == 1 and region.y == nav.y  # on the nav row's first line
        assert region.x >= 0 and region.right <= size[0]
        assert screen.PRIMARY[1] in _screen_text(app, "nav")
        for name in ("back", "next"):
            assert not screen.query_one(f"#{name}", Button).can_focus  # no Enter on Back


async def test_a_paper_in_the_repository_is_loaded_on_arrival(toy_repo: Path) -> None:
    import json

    (toy_repo / "paper.json").write_text(json.dumps({"1": "A Toy Title\nA. Author\nAbstract"}))
    app = _app(toy_repo, "paper")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        await _settle(pilot)
        assert app.spec.paper_pdf == str(toy_repo / "paper.json")
        assert app.paper_pages == {"1": "A Toy Title\nA. Author\nAbstract"}
        assert app.spec.paper_name == "A Toy Title"
        assert "loaded paper.json (1 page(s))" in _screen_text(app, "status")


async def test_a_latex_source_in_a_paper_folder_is_loaded_on_arrival(toy_repo: Path) -> None:
    # Research repositories keep their paper in paper/ or latex/, rarely at the top.
    paper = toy_repo / "paper"
    (paper / "sections").mkdir(parents=True)
    (paper / "main.tex").write_text(
        "\\documentclass{article}\n\\title{Margins for Toys}\n\\begin{document}\n"
        "\\maketitle\n\\input{sections/method}\n\\end{document}\n"
    )
    (paper / "sections" / "method.tex").write_text("\\section{Method}\nA logistic margin loss.\n")
    app = _app(toy_repo, "paper")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        await _settle(pilot)
        assert app.spec.paper_pdf == str(paper / "main.tex")
        assert app.spec.paper_name == "Margins for Toys"
        assert "logistic margin loss" in " ".join(app.paper_pages.values())
        assert "loaded main.tex (LaTeX, 1 page(s))" in _screen_text(app, "status")


async def test_after_a_save_the_next_start_names_the_saved_task(
    toy_repo: Path, tmp_path: Path
) -> None:
    spec = TaskSpec(
        folder_name="07-Saved",
        benchmark_dir=str(tmp_path / "bench"),
        source=str(toy_repo),
        repo_path=str(toy_repo),
        finished=True,
    )
    save_spec(spec, draft_path("again"))
    app = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="again")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        assert app.spec.step == "source" and not app.spec.folder_name  # a new draft
        assert "last task saved: 07-Saved in" in _screen_text(app, "status")


async def test_ctrl_a_selects_the_template_instruction_to_replace_it(toy_repo: Path) -> None:
    app = _app(toy_repo, "instruction")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        area = app.screen.query_one("#instruction", TextArea)
        area.focus()
        await pilot.press("ctrl+a", *"Return the margin loss.")
        await pilot.pause()
        assert app.spec.goals[0].instruction == "Return the margin loss."


async def test_long_work_says_its_latest_line_and_its_time_in_the_status(toy_repo: Path) -> None:
    # A 3-minute build at 80×24 said "building the image…" alone: its log was below the fold.
    from lmr_author.tui.new_task.steps.environment import EnvironmentStep

    app = _app(toy_repo, "environment")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, EnvironmentStep)
        screen.log_start("Image build")
        screen.post_message(
            EnvironmentStep.BuildLog("\x1b[1m#5 RUN pip install numpy==1.26.4\x1b[0m")
        )
        await pilot.pause()
        status = _screen_text(app, "status")
        assert re.search(r"building \(\d+ s\): #5 RUN pip install numpy", status), status
        assert "#5 RUN pip install numpy==1.26.4" in screen.output.lines[-1]
