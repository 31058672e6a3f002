"""The check step's hardware fields: what one run needs, typed, checked, in info.json."""

from __future__ import annotations

import json
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, Static

from lmr_author.authoring.check import draft_info
from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, load_spec, save_spec
from lmr_author.tui.new_task.app import NewTaskApp

SMALL = (80, 24)


async def _settle(pilot: Pilot[int]) -> None:
    for _ in range(3):
        ours = [w for w in pilot.app.workers if w.name != "_loader"]
        if ours:
            await pilot.app.workers.wait_for_complete(ours)
        await pilot.pause()


def _app(repo: Path, paper: Path) -> NewTaskApp:
    spec = TaskSpec(
        folder_name="07-Toy",
        source=str(repo),
        repo_path=str(repo),
        paper_pdf=str(paper),
        year=2024,
        step="check",
        goals=[GoalSpec("toy/losses.py", "margin_loss", instruction="Implement it.")],
    )
    save_spec(spec, draft_path("hardware"))
    return NewTaskApp(benchmark_dir=Path("bench"), draft_name="hardware")


async def _type(pilot: Pilot[int], field: str, text: str) -> None:
    box = pilot.app.screen.query_one(f"#field-{field}", Input)
    box.value = ""
    box.focus()
    await pilot.press(*text)
    await pilot.pause()


async def test_gpus_typed_in_the_check_step_reach_info_json_and_the_draft(
    toy_repo: Path, toy_paper: Path
) -> None:
    app = _app(toy_repo, toy_paper)
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        assert app.screen.query_one("#field-gpus", Input).value == ""  # no GPU: empty
        await _type(pilot, "gpus", "2")
        await _type(pilot, "gpu_memory_gb", "40")
        assert (app.spec.gpus, app.spec.gpu_memory_gb) == (2, 40.0)
        assert draft_info(app.spec)["hardware"] == {"gpus": 2, "gpu_memory_gb": 40.0}
        state = str(app.screen.query_one("#schema-state", Static).render())
        assert state == "✓ info.json matches the schema"
        shown = app.screen.query_one("#info-json", Static).content  # the live info.json
        assert json.loads(shown.code)["hardware"] == {"gpus": 2, "gpu_memory_gb": 40.0}  # type: ignore[attr-defined]
        # Memory without GPUs is what the loader refuses: flagged before Save.
        await _type(pilot, "gpus", "0")
        state = str(app.screen.query_one("#schema-state", Static).render())
        assert "$.hardware" in state and "'gpus' is 0" in state, state
    saved = load_spec(draft_path("hardware"))
    assert (saved.gpus, saved.gpu_memory_gb) == (0, 40.0)  # autosaved as typed


async def test_a_value_that_is_no_number_is_refused_with_why(
    toy_repo: Path, toy_paper: Path
) -> None:
    app = _app(toy_repo, toy_paper)
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        await _type(pilot, "gpus", "1")
        memory = app.screen.query_one("#field-gpu_memory_gb", Input)
        for text in ("lots", "-3", "nan", "inf", "0"):
            memory.value = text
            await pilot.pause()
            assert app.spec.gpu_memory_gb is None, text
        status = str(app.screen.query_one("#status", Static).render())
        assert "positive number of GB" in status, status
        app.screen.query_one("#field-gpus", Input).value = "two"
        await pilot.pause()
        assert app.spec.gpus == 1
        status = str(app.screen.query_one("#status", Static).render())
        assert "whole number" in status, status
        # Put right (here: emptied), the field's error leaves the status line.
        app.screen.query_one("#field-gpus", Input).value = ""
        await pilot.pause()
        status = str(app.screen.query_one("#status", Static).render())
        assert "whole number" not in status, status
        assert app.spec.gpus == 0
