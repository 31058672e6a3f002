"""End to end through every screen of the new-task app, with Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Select, Static, TextArea

from lmr_author.authoring.spec import draft_path, load_spec
from lmr_author.tui.new_task.app import NewTaskApp
from tests.tui.new_task.conftest import DRIVER

SIZE = (150, 48)


async def _settle(pilot: Pilot[int]) -> None:
    """Wait for the app's own workers (not DirectoryTree's long-lived loader)."""
    ours = [w for w in pilot.app.workers if w.name != "_loader"]
    if ours:  # an empty list would mean "all workers" to wait_for_complete
        await pilot.app.workers.wait_for_complete(ours)
    await pilot.pause()


async def test_every_screen_in_order(tmp_path: Path, toy_repo: Path, toy_paper: Path) -> None:
    benchmark = tmp_path / "bench"
    app = NewTaskApp(benchmark_dir=benchmark, draft_name="e2e")
    async with app.run_test(size=SIZE) as pilot:
        # 1. Source
        assert app.screen.query_one("#step-title", Static).visual is not None
        app.screen.query_one("#source", Input).value = str(toy_repo)
        await pilot.click("#checkout")
        await _settle(pilot)
        assert app.spec.repo_commit and len(app.spec.repo_commit) == 40
        await pilot.press("ctrl+n")
        # 2. Paper
        app.screen.query_one("#pdf", Input).value = str(toy_paper)
        await pilot.click("#load")
        await _settle(pilot)
        assert "logistic loss" in app.paper_pages["1"]
        assert app.spec.paper_name == "Margin Losses for Toy Preferences"
        await pilot.press("ctrl+n")
        # 3. Goal: fuzzy search, Enter picks
        await _settle(pilot)
        app.screen.query_one("#fn-search", Input).value = "margin"
        await pilot.pause()
        options = app.screen.query_one("#functions", OptionList)
        assert options.option_count >= 1
        options.focus()
        options.highlighted = 0
        await pilot.press("enter")
        await pilot.pause()
        assert [(g.goal_file, g.goal_function) for g in app.spec.goals] == [
            ("toy/losses.py", "margin_loss")
        ]
        await pilot.press("ctrl+n")
        # 4. Mask: the diff removes the body
        await _settle(pilot)
        preview = app.screen.preview  # type: ignore[attr-defined]
        assert "-    total = 0.0" in preview.diff.splitlines()
        assert "total = 0.0" not in preview.masked
        await pilot.press("ctrl+n")
        # 5. Instruction: prefilled; choose a category; keep the suggested retrieval file
        await pilot.pause()
        instruction = app.screen.query_one("#instruction", TextArea).text
        assert "`margin_loss`" in instruction and "toy/losses.py" in instruction
        await pilot.press("ctrl+n")  # refused: no category yet
        assert app.spec.step == "instruction"
        app.screen.query_one("#category", Select).value = "Training Objectives & Optimization"
        await pilot.pause()
        await pilot.press("ctrl+n")
        # 6. Environment: proposed from the goal module's imports (stdlib only here)
        await _settle(pilot)
        assert app.spec.step == "environment"
        assert "dependency" in str(app.screen.query_one("#status", Static).visual)
        await pilot.press("ctrl+n")
        # 7. Tests: the driver (recorded in Docker: see test_app_docker.py)
        await pilot.pause()
        app.screen.query_one("#driver", TextArea).load_text(DRIVER)
        await pilot.pause()
        assert app.spec.goals[0].driver == DRIVER
        await pilot.press("ctrl+n")
        # 8. Check: the schema live; instance_id may wait for the save (the folder name
        # says it), the year may not: this paper's PDF has no date to fill it from.
        await pilot.pause()
        assert app.spec.step == "check"
        app.screen.query_one("#field-folder_name", Input).value = "07-ToyMargin"
        await pilot.pause()
        state = app.screen.query_one("#schema-state", Static)
        assert str(state.visual).startswith("✗ $.year: the task has no year")
        app.screen.query_one("#field-instance_id", Input).value = "7"
        app.screen.query_one("#field-year", Input).value = "2025"
        await pilot.pause()
        assert (app.spec.instance_id, app.spec.year) == (7, 2025)
        assert "matches the schema" in str(state.visual)
        await pilot.press("ctrl+n")
        # 9. Save: the target is shown; saving (checks in Docker) is test_app_docker.py's
        await _settle(pilot)
        assert "07-ToyMargin" in str(app.screen.query_one("#target", Static).visual)
        assert "not checked yet" in str(app.screen.query_one("#check-state", Static).visual)

    saved = load_spec(draft_path("e2e"))
    assert saved.step == "save" and saved.folder_name == "07-ToyMargin"
    assert saved.goals[0].category == "Training Objectives & Optimization"


async def test_quit_and_resume_at_the_same_step(tmp_path: Path, toy_repo: Path) -> None:
    app = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="resume")
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one("#source", Input).value = str(toy_repo)
        app.screen.query_one("#ref", Input).value = "main"
        await pilot.click("#checkout")
        await _settle(pilot)
        await pilot.press("ctrl+n")
        app.screen.query_one("#pdf", Input).value = "/nowhere/paper.pdf"
        await pilot.pause()
        await pilot.press("ctrl+q")
    saved = load_spec(draft_path("resume"))
    assert (saved.step, saved.source, saved.ref) == ("paper", str(toy_repo), "main")
    assert saved.paper_pdf == "/nowhere/paper.pdf"

    again = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="resume")
    async with again.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        assert again.screen.query_one("#pdf", Input).value == "/nowhere/paper.pdf"
        assert "no such file" in str(again.screen.query_one("#status", Static).visual)
        await pilot.press("ctrl+n")  # refused: the paper is not loaded
        assert again.spec.step == "paper"
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert again.screen.query_one("#source", Input).value == str(toy_repo)


async def test_existing_task_is_not_replaced_without_confirmation(
    tmp_path: Path, toy_repo: Path
) -> None:
    from lmr_author.authoring.spec import GoalSpec, TaskSpec, save_spec

    benchmark = tmp_path / "bench"
    (benchmark / "07-Toy").mkdir(parents=True)
    (benchmark / "07-Toy" / "keep.txt").write_text("mine")
    spec = TaskSpec(
        folder_name="07-Toy",
        source=str(toy_repo),
        repo_path=str(toy_repo),
        step="save",
        goals=[GoalSpec("toy/losses.py", "margin_loss")],
    )
    save_spec(spec, draft_path("confirm"))
    app = NewTaskApp(benchmark_dir=benchmark, draft_name="confirm")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#save")
        await _settle(pilot)  # the worker looks whether the folder exists
        await pilot.press("n")
        await _settle(pilot)
    assert (benchmark / "07-Toy" / "keep.txt").read_text() == "mine"


async def test_function_list_fills_in_from_worker_processes(tmp_path: Path) -> None:
    """Enough files for the parallel indexer, started from inside the running app.

    Regression: spawning the worker pool under Textual failed ("bad value(s) in
    fds_to_keep") because the app replaces sys.stderr, and the list stayed empty.
    """
    from lmr_author.authoring.spec import TaskSpec, save_spec
    from lmr_author.cst.repository import _PARALLEL_MIN_FILES

    repo = tmp_path / "many"
    for number in range(_PARALLEL_MIN_FILES + 40):
        module = repo / f"pkg{number % 7}" / f"mod{number}.py"
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text(
            f"def f{number}(x):\n    return x\n\n\nclass C{number}:\n"
            f"    def m(self):\n        return {number}\n"
        )
    save_spec(TaskSpec(source=str(repo), repo_path=str(repo), step="goal"), draft_path("many"))
    app = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="many")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        functions = app.screen.functions  # type: ignore[attr-defined]
        assert len(functions) == 2 * (_PARALLEL_MIN_FILES + 40)
        assert "indexing" not in str(app.screen.query_one("#status", Static).visual)


async def test_autosave_runs_off_the_ui_thread_and_keeps_the_newest_draft(
    tmp_path: Path, toy_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    import lmr_author.tui.new_task.app as app_module
    from lmr_author.authoring.spec import TaskSpec, save_spec

    writers: list[str] = []

    def recording_save(spec: TaskSpec, path: Path) -> None:
        writers.append(threading.current_thread().name)
        save_spec(spec, path)

    monkeypatch.setattr(app_module, "save_spec", recording_save)
    app = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="threads")
    async with app.run_test(size=SIZE) as pilot:
        for text in ("a", "ab", str(toy_repo)):
            app.screen.query_one("#source", Input).value = text
            await pilot.pause()
        await _settle(pilot)
    assert writers and threading.main_thread().name not in writers
    assert load_spec(draft_path("threads")).source == str(toy_repo)
