"""Pilot tests of the smaller behaviours of the new-task app: one Enter picks, an empty
search says so, errors are never cut off, mask styles read without colour, the
retrieval context fills from the repository, every button is reachable at 80×24."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import (
    Button,
    Input,
    OptionList,
    RadioButton,
    RichLog,
    SelectionList,
    Static,
    TextArea,
)

from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, save_spec
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.widgets.log_view import LogScreen
from tests.tui.new_task.conftest import settle

SMALL = (80, 24)


def _screen_lines(app: NewTaskApp, widget_id: str) -> list[str]:
    """The lines the terminal shows of one widget's region."""
    region = app.screen.query_one(f"#{widget_id}").region
    lines = [strip.text for strip in app.screen._compositor.render_strips()]
    return [line[region.x : region.right] for line in lines[region.y : region.bottom]]


_settle = settle


def _app(spec: TaskSpec, name: str) -> NewTaskApp:
    save_spec(spec, draft_path(name))
    return NewTaskApp(benchmark_dir=Path("bench"), draft_name=name)


def _goal_step_with_paper(repo: Path, paper: Path, name: str) -> NewTaskApp:
    """The app at the goal step of a draft with a paper: suggestions come."""
    spec = _draft(repo, "goal")
    spec.paper_pdf = str(paper)
    return _app(spec, name)


def _draft(repo: Path, step: str) -> TaskSpec:
    return TaskSpec(
        source=str(repo),
        repo_path=str(repo),
        step=step,
        goals=[GoalSpec("toy/losses.py", "margin_loss")] if step != "goal" else [],
    )


async def test_one_enter_in_the_search_adds_the_function(toy_repo: Path) -> None:
    app = _app(_draft(toy_repo, "goal"), "enter")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        await pilot.press(*"margin")
        await pilot.press("enter")
        await pilot.pause()
        assert [g.goal_function for g in app.spec.goals] == ["margin_loss"]
        assert app.screen.focused is app.screen.query_one("#fn-search", Input)


async def test_a_search_that_matches_nothing_says_so(toy_repo: Path) -> None:
    app = _app(_draft(toy_repo, "goal"), "nomatch")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        await pilot.press(*"zzqx")
        await pilot.pause()
        assert app.screen.query_one("#functions", OptionList).option_count == 0
        empty = app.screen.query_one("#fn-empty", Static)
        assert empty.display and "no function matches 'zzqx'" in str(empty.visual)


async def test_same_named_functions_show_their_file_on_their_row(tmp_path: Path) -> None:
    repo = tmp_path / "twins"
    for folder in ("a", "b"):
        (repo / folder).mkdir(parents=True)
        (repo / folder / "loss.py").write_text("def compute(x):\n    return x\n")
    app = _app(TaskSpec(source=str(repo), repo_path=str(repo), step="goal"), "twins")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        rows = _screen_lines(app, "functions")
        assert any(re.search(r"compute +a/loss\.py:1", row) for row in rows), rows
        assert any(re.search(r"compute +b/loss\.py:1", row) for row in rows), rows


async def test_a_failing_driver_shows_its_whole_error_in_the_log(toy_repo: Path) -> None:
    spec = _draft(toy_repo, "tests")
    spec.goals[
        0
    ].driver = "import toy.losses\nraise RuntimeError('the driver broke: ' + 'x' * 300)\n"
    app = _app(spec, "driverlog")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        button = app.screen.query_one("#record", Button)
        button.focus()
        await pilot.pause()
        assert button.region.y < SMALL[1] - 1, "the Record button must be on screen"
        await pilot.press("enter")
        await _settle(pilot)
        status = app.screen.query_one("#status", Static)
        assert "error" in status.classes
        assert len(str(status.visual).splitlines()) == 1
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert isinstance(app.screen, LogScreen)
        log = app.screen.query_one("#full-log", RichLog)
        text = "\n".join(strip.text for strip in log.lines)
        assert "RuntimeError" in text and "x" * 50 in text.replace("\n", "")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LogScreen)


async def test_mask_styles_differ_without_colour(
    toy_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = _app(_draft(toy_repo, "mask"), "nocolor")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        text = app.screen.query_one("#mask-chosen", Static)
        assert "lmr" in str(text.visual)
        todo = next(b for b in app.screen.query(RadioButton) if b.name == "todo")
        await pilot.click(todo)
        await _settle(pilot)
        assert app.spec.goals[0].mask_style == "todo"
        assert "todo" in str(app.screen.query_one("#mask-chosen", Static).visual)
        labels = {str(b.label) for b in app.screen.query("RadioButton")}
        assert any(label.startswith("(chosen) todo") for label in labels)
        assert not any(label.startswith("(chosen) lmr") for label in labels)


async def test_the_retrieval_context_fills_from_the_repository(toy_repo: Path) -> None:
    spec = _draft(toy_repo, "instruction")
    spec.goals[0].instruction = "Implement it."
    (toy_repo / "toy" / "extra.py").write_text("def helper():\n    return 1\n")
    app = _app(spec, "retrieval")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        app.screen.query_one("#retrieval-add", Button).press()
        await _settle(pilot)
        await pilot.press(*"extra")
        await pilot.press("enter")
        await _settle(pilot)
        assert "toy/extra.py" in app.spec.goals[0].retrieval_context
        selection = app.screen.query_one("#retrieval", SelectionList)
        paths = [selection.get_option_at_index(i).value for i in range(selection.option_count)]
        selection.highlighted = paths.index("toy/extra.py")
        app.screen.query_one("#retrieval-remove", Button).press()
        await pilot.pause()
        assert "toy/extra.py" not in app.spec.goals[0].retrieval_context


@pytest.mark.parametrize(
    "step", ["source", "paper", "goal", "mask", "instruction", "tests", "check", "save"]
)
async def test_every_button_of_every_step_can_be_seen_at_80x24(toy_repo: Path, step: str) -> None:
    app = _app(_draft(toy_repo, step), f"reach-{step}")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        for button in app.screen.query(Button):
            shown = all(getattr(node, "display", True) for node in button.ancestors_with_self)
            if not shown or button.disabled:
                continue
            button.focus()
            await pilot.pause()
            region = button.region
            assert region.height >= 1 and 0 <= region.y < SMALL[1], (step, button.id, region)


async def test_goal_suggestions_say_why_and_enter_adds(toy_repo: Path, toy_paper: Path) -> None:
    spec = _draft(toy_repo, "goal")
    spec.paper_pdf = str(toy_paper)
    app = _app(spec, "suggest")
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(pilot)
        await _settle(pilot)  # the paper loads, then the suggestions are ranked
        suggestions = app.screen.query_one("#suggestions", OptionList)
        assert suggestions.display and suggestions.option_count >= 1
        best = str(suggestions.get_option_at_index(0).prompt)
        assert "margin_loss" in best
        why = str(app.screen.query_one("#suggestion-why", Static).visual)
        assert why.startswith("why: matches ") and "page 1" in why, why
        suggestions.focus()
        suggestions.highlighted = 0
        await pilot.press("enter")
        await pilot.pause()
        assert [g.goal_function for g in app.spec.goals] == ["margin_loss"]


async def test_enter_in_an_empty_search_adds_the_top_suggestion_never_the_first_function(
    toy_repo: Path, toy_paper: Path
) -> None:
    # A new annotator arrives, sees the suggestions and presses Enter: the first
    # function of the first file (a data loader here) was added instead.
    (toy_repo / "toy" / "aaa_setup.py").write_text("def configure(path):\n    return path\n")
    app = _goal_step_with_paper(toy_repo, toy_paper, "empty-enter")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        await _settle(pilot)
        functions = app.screen.query_one("#functions", OptionList)
        assert "::configure::" in str(functions.get_option_at_index(0).id)
        assert functions.highlighted is None
        assert app.screen.query_one("#suggestions", OptionList).highlighted == 0
        await pilot.press("enter")
        await pilot.pause()
        assert [g.goal_function for g in app.spec.goals] == ["margin_loss"]
        await pilot.press("down", "enter")  # ↓ highlights a function: Enter takes it
        await pilot.pause()
        assert [g.goal_function for g in app.spec.goals] == ["margin_loss", "configure"]


async def test_picked_goals_leave_the_suggestions_and_the_next_come_up(
    toy_repo: Path, toy_paper: Path
) -> None:
    # An annotator picking several goals in turn saw the goals already picked stay on
    # top of the suggestions, so Enter after Enter took the same one off again.
    app = _goal_step_with_paper(toy_repo, toy_paper, "picked-leave")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        await _settle(pilot)
        listing = app.screen.query_one("#suggestions", OptionList)

        def names() -> list[str]:
            prompts = [listing.get_option_at_index(i).prompt for i in range(listing.option_count)]
            return [str(prompt).split()[0] for prompt in prompts]

        before = names()
        assert len(before) >= 2, before
        await pilot.press("enter")  # the empty search takes the top suggestion
        await pilot.pause()
        assert names()[0] == before[1] and before[0] not in names()
        assert listing.highlighted == 0  # Enter again takes the next candidate
        await pilot.press("enter")
        await pilot.pause()
        picked = [
            (f"{g.class_name}." if g.class_name else "") + g.goal_function for g in app.spec.goals
        ]
        assert picked == before[:2]
        assert not set(picked) & set(names())
        search = app.screen.query_one("#fn-search", Input)
        search.value = before[0].split(".")[-1]
        await pilot.pause()
        await pilot.press("enter")  # picked again in the search: dropped as a goal
        await pilot.pause()
        assert before[0] in names()  # and back among the suggestions


async def test_enter_in_an_empty_search_without_suggestions_adds_nothing(toy_repo: Path) -> None:
    app = _app(_draft(toy_repo, "goal"), "empty-enter-no-paper")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.spec.goals == []
        assert "↓" in str(app.screen.query_one("#status", Static).visual)


async def test_instruction_drafted_by_the_model_from_the_paper(
    toy_repo: Path, toy_paper: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.openai_server import OpenAIServer, Reply

    spec = _draft(toy_repo, "instruction")
    spec.paper_pdf = str(toy_paper)
    with OpenAIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        server.enqueue(Reply(content="Implement the `margin_loss` function in toy/losses.py."))
        app = _app(spec, "llm")
        async with app.run_test(size=SMALL) as pilot:
            await _settle(pilot)
            await _settle(pilot)  # the resumed draft's paper
            button = app.screen.query_one("#llm-draft", Button)
            assert button.display
            button.press()
            await _settle(pilot)
            text = app.screen.query_one("#instruction", TextArea).text
            assert text.startswith("Implement the `margin_loss` function")
            assert app.spec.goals[0].instruction == text
            assert "drafted by the model" in str(app.screen.query_one("#status", Static).visual)
        [request] = server.requests
    assert "margin_loss" in request.body["messages"][1]["content"]


async def test_without_an_endpoint_there_is_no_llm_button(
    toy_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    app = _app(_draft(toy_repo, "instruction"), "nollm")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        assert not app.screen.query_one("#llm-row").display
        assert "`margin_loss`" in app.screen.query_one("#instruction", TextArea).text
