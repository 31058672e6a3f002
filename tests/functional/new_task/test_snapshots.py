"""Snapshot tests of the main new-task screens (SVG files under __snapshots__/).

Deterministic: fixed terminal size, a fixed draft, workers awaited, no cursor blink, no
temporary paths on screen. Update after an intended change: ``pytest --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, save_spec
from lmr_author.tui.new_task.app import NewTaskApp

SIZE = (120, 40)
SnapCompare = Callable[..., bool]


async def _still(pilot: Pilot[Any]) -> None:
    app = pilot.app
    ours = [w for w in app.workers if w.name != "_loader"]
    if ours:
        await app.workers.wait_for_complete(ours)
    await pilot.pause()
    for widget in app.screen.query(Input):
        widget.cursor_blink = False
    for area in app.screen.query(TextArea):
        area.cursor_blink = False
    app.clear_notifications()
    await pilot.pause()


def _app(tmp_path: Path, spec: TaskSpec) -> NewTaskApp:
    save_spec(spec, draft_path("snap"))
    return NewTaskApp(benchmark_dir=Path("benchmark"), draft_name="snap")


def test_source_screen_of_a_new_draft(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(_app(tmp_path, TaskSpec()), terminal_size=SIZE, run_before=_still)


@pytest.fixture
def masked_draft(toy_repo: Path) -> TaskSpec:
    return TaskSpec(
        source="toy-margin",
        repo_path=str(toy_repo),
        repo_folder_name="toy-margin",
        goals=[GoalSpec("toy/losses.py", "margin_loss")],
    )


def test_mask_screen_shows_the_diff(
    snap_compare: SnapCompare, tmp_path: Path, masked_draft: TaskSpec
) -> None:
    masked_draft.step = "mask"
    assert snap_compare(_app(tmp_path, masked_draft), terminal_size=SIZE, run_before=_still)


def test_instruction_screen_prefilled(
    snap_compare: SnapCompare, tmp_path: Path, masked_draft: TaskSpec
) -> None:
    masked_draft.step = "instruction"
    assert snap_compare(_app(tmp_path, masked_draft), terminal_size=SIZE, run_before=_still)
