"""Stale state in the app: what a second checkout, a finished task and a resumed draft
keep and drop (the library decides; these tests drive it through the screens)."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, Static

from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, load_spec, save_spec
from lmr_author.tui.new_task.app import NewTaskApp

SMALL = (80, 24)


async def _settle(pilot: Pilot[int]) -> None:
    for _ in range(2):
        ours = [w for w in pilot.app.workers if w.name != "_loader"]
        if ours:
            await pilot.app.workers.wait_for_complete(ours)
        await pilot.pause()


async def test_a_second_checkout_drops_the_first_ones_folder_name(
    tmp_path: Path, toy_repo: Path
) -> None:
    plain = tmp_path / "not-a-git-folder"
    (plain / "pkg").mkdir(parents=True)
    (plain / "pkg" / "m.py").write_text("def f():\n    return 1\n")
    app = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="two-checkouts")
    async with app.run_test(size=SMALL) as pilot:
        source = app.screen.query_one("#source", Input)
        source.value = str(plain)
        await pilot.pause()
        await pilot.press("ctrl+n")  # refused: not checked out yet
        assert app.spec.step == "source"
        source.focus()
        await pilot.press("enter")
        await _settle(pilot)
        assert app.spec.repo_folder_name == "not-a-git-folder"
        source.value = str(toy_repo)
        await pilot.pause()
        source.focus()
        await pilot.press("enter")
        await _settle(pilot)
        assert app.spec.repo_folder_name == "toy-margin"
        assert len(app.spec.repo_commit) == 40
        assert "toy-margin" in str(app.screen.query_one("#source-info", Static).visual)
    assert load_spec(draft_path("two-checkouts")).repo_folder_name == "toy-margin"


async def test_a_finished_tasks_draft_is_not_resumed(tmp_path: Path, toy_repo: Path) -> None:
    done = TaskSpec(
        folder_name="07-Done",
        source=str(toy_repo),
        repo_path=str(toy_repo),
        step="save",
        benchmark_dir=str(tmp_path / "my-bench"),
        finished=True,
        goals=[GoalSpec("toy/losses.py", "margin_loss")],
    )
    save_spec(done, draft_path("finished"))
    app = NewTaskApp(benchmark_dir=tmp_path / "default-bench", draft_name="finished")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        assert app.spec.step == "source" and not app.spec.goals and not app.spec.source
        assert app.screen.query_one("#source", Input).value == ""
        # where the annotator saves tasks is kept for the next task
        assert app.benchmark_dir == tmp_path / "my-bench"


async def test_a_resumed_draft_shows_its_paper_and_title(
    tmp_path: Path, toy_repo: Path, toy_paper: Path
) -> None:
    spec = TaskSpec(
        source=str(toy_repo),
        repo_path=str(toy_repo),
        paper_pdf=str(toy_paper),
        paper_name="Margin Losses for Toy Preferences",
        step="goal",
    )
    save_spec(spec, draft_path("resumed-paper"))
    app = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="resumed-paper")
    async with app.run_test(size=(120, 30)) as pilot:
        await _settle(pilot)
        title = str(app.screen.query_one("#step-title", Static).visual)
        assert "Margin Losses for Toy Preferences" in title
        assert "logistic loss" in app.paper_pages.get("1", "")
        await pilot.press("ctrl+b")  # back to the paper step: loaded, not asked again
        await _settle(pilot)
        assert "logistic loss" in str(app.screen.query_one("#paper-text", Static).visual)
        assert app.screen.can_leave() is None  # type: ignore[attr-defined]


async def test_the_save_steps_benchmark_folder_persists(tmp_path: Path, toy_repo: Path) -> None:
    spec = TaskSpec(
        folder_name="07-Toy",
        source=str(toy_repo),
        repo_path=str(toy_repo),
        step="save",
        goals=[GoalSpec("toy/losses.py", "margin_loss")],
    )
    save_spec(spec, draft_path("bench-dir"))
    chosen = tmp_path / "elsewhere"
    app = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="bench-dir")
    async with app.run_test(size=SMALL) as pilot:
        app.screen.query_one("#into", Input).value = str(chosen)
        await _settle(pilot)
        await pilot.press("ctrl+q")
    again = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="bench-dir")
    async with again.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        assert again.screen.query_one("#into", Input).value == str(chosen)
