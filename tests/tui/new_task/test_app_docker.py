"""The whole flow inside the app on a repository that needs pandas and SciPy, for real:
source → paper → goal → mask → instruction → environment (proposed, built from the
package index) → tests (recorded twice in Docker) → check (verified in Docker) → save →
`lmr-author validate --run` green; and the app's nondeterminism and unverified-save
dialogues. pandas, SciPy and scikit-learn cannot be imported in this process during the
flow: they exist only in the image."""

from __future__ import annotations

import importlib.abc
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, DataTable, Input, Select, Static, Switch, TextArea

from lmr_author.authoring.paper_pdf import make_paper_pdf
from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, load_spec, save_spec
from lmr_author.cli import main
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.new_task.steps.save import ConfirmUnverified
from tests.support.real_repo import DRIVER, LAX_DRIVER, NOISY_DRIVER, write_real_repo

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SMALL = (80, 24)


async def _settle(pilot: Pilot[int]) -> None:
    for _ in range(3):
        ours = [w for w in pilot.app.workers if w.name != "_loader"]
        if ours:
            await pilot.app.workers.wait_for_complete(ours)
        await pilot.pause()


async def _press(pilot: Pilot[int], selector: str) -> None:
    """Focus a button and press Enter, as a keyboard user at 80×24 would."""
    button = pilot.app.screen.query_one(selector, Button)
    button.focus()
    await pilot.pause()
    assert 0 <= button.region.y < SMALL[1], f"{selector} is off screen"
    await pilot.press("enter")
    await _settle(pilot)


def _status(app: NewTaskApp) -> str:
    return str(app.screen.query_one("#status", Static).visual)


def _paper(tmp_path: Path) -> Path:
    pdf = tmp_path / "paper.pdf"
    make_paper_pdf(
        "Robust Outlier Scores",
        [("Method", "The robust score is z = (x - median) / MAD, Eq. (2).")],
        pdf,
    )
    return pdf


class _NotOnThisHost(importlib.abc.MetaPathFinder):
    """Makes the repository's dependencies unimportable here: they must live in the image."""

    BLOCKED = ("pandas", "scipy", "sklearn")

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name.split(".")[0] in self.BLOCKED:
            raise ImportError(f"{name} must not be imported on the host")


@pytest.fixture
def host_without_dependencies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(sys.modules):
        if name.split(".")[0] in _NotOnThisHost.BLOCKED:
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [_NotOnThisHost(), *sys.meta_path])


async def test_the_app_authors_a_real_task_in_docker(
    docker_client: Any, tmp_path: Path, host_without_dependencies: None
) -> None:
    from lmr_author.sandbox.housekeeping import prune

    repo = write_real_repo(tmp_path)
    pdf = _paper(tmp_path)
    bench = tmp_path / "bench"
    folder = f"92-AppOutliers{tmp_path.name[-6:].replace('_', '')}"
    app = NewTaskApp(benchmark_dir=bench, draft_name="app-real")
    try:
        async with app.run_test(size=SMALL) as pilot:
            # 1. Source
            app.screen.query_one("#source", Input).value = str(repo)
            await _press(pilot, "#checkout")
            await pilot.press("ctrl+n")
            # 2. Paper
            app.screen.query_one("#pdf", Input).value = str(pdf)
            await _press(pilot, "#load")
            assert app.spec.paper_name == "Robust Outlier Scores"
            await pilot.press("ctrl+n")
            # 3. Goal: one Enter in the search picks
            await _settle(pilot)
            app.screen.query_one("#fn-search", Input).focus()
            await pilot.press(*"robust_scores", "enter")
            await pilot.pause()
            assert [g.goal_function for g in app.spec.goals] == ["robust_scores"]
            await pilot.press("ctrl+n")
            # 4. Mask
            await _settle(pilot)
            await pilot.press("ctrl+n")
            # 5. Instruction
            await _settle(pilot)
            app.screen.query_one("#category", Select).value = "Evaluation Metrics"
            await pilot.pause()
            await pilot.press("ctrl+n")
            # 6. Environment: pandas and SciPy proposed with their sources, built
            await _settle(pilot)
            table = app.screen.query_one("#proposals", DataTable)
            rows = {
                str(table.get_row_at(i)[0]): str(table.get_row_at(i)[1])
                for i in range(table.row_count)
            }
            assert any(line.startswith("pandas") for line in rows), rows
            assert any(line.startswith("scipy") for line in rows), rows
            assert "matplotlib" not in app.spec.requirements
            await _press(pilot, "#build")
            assert "image built" in _status(app), app.screen.output.text  # type: ignore[attr-defined]
            assert app.environment_image is not None
            await pilot.press("ctrl+n")
            # 7. Tests: recorded twice in the image
            await pilot.pause()
            app.screen.query_one("#driver", TextArea).load_text(DRIVER)
            await pilot.pause()
            await _press(pilot, "#record")
            recorded = str(app.screen.query_one("#recorded", Static).visual)
            assert "3 fixture(s) recorded twice" in recorded, app.screen.output.text  # type: ignore[attr-defined]
            await pilot.press("ctrl+n")
            # 8. Check: verified in Docker
            await pilot.pause()
            app.screen.query_one("#field-folder_name", Input).value = folder
            app.screen.query_one("#field-year", Input).value = "2024"
            await pilot.pause()
            await _press(pilot, "#verify")
            assert "verified" in _status(app), app.screen.output.text  # type: ignore[attr-defined]
            await pilot.press("ctrl+n")
            # 9. Save: the checks of this content are reused
            await _settle(pilot)
            assert "verified" in str(app.screen.query_one("#check-state", Static).visual)
            await _press(pilot, "#save")
            assert "saved" in _status(app), app.screen.output.text  # type: ignore[attr-defined]
            assert "reusing the checks" in app.screen.output.text  # type: ignore[attr-defined]
            assert "info.json" in str(app.screen.query_one("#saved", Static).visual)
        task_dir = bench / folder
        info = json.loads((task_dir / "info.json").read_text(encoding="utf-8"))
        assert info["instance_id"] == 92 and info["year"] == 2024
        assert load_spec(draft_path("app-real")).finished
        assert main(["validate", "--run", str(task_dir)]) == 0
    finally:
        prune(client=docker_client, task=folder)


def _noisy_spec(tmp_path: Path, folder: str) -> TaskSpec:
    repo = write_real_repo(tmp_path)
    return TaskSpec(
        folder_name=folder,
        source=str(repo),
        repo_path=str(repo),
        repo_folder_name="outliers-repo",
        requirements="",
        step="tests",
        goals=[
            GoalSpec(
                "outliers/noisy.py",
                "jitter",
                instruction="Add noise.",
                category="Data Processing",
                driver=NOISY_DRIVER,
            )
        ],
    )


async def test_a_nondeterministic_golden_is_said_and_seeding_offered(
    docker_client: Any, tmp_path: Path
) -> None:
    from lmr_author.sandbox.housekeeping import prune

    folder = f"93-Noisy{tmp_path.name[-6:].replace('_', '')}"
    save_spec(_noisy_spec(tmp_path, folder), draft_path("noisy"))
    app = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="noisy")
    try:
        async with app.run_test(size=SMALL) as pilot:
            await _settle(pilot)
            assert not app.screen.query_one("#seed-row").display
            await _press(pilot, "#record")
            warning = app.screen.query_one("#nondeterminism", Static)
            assert warning.display, app.screen.output.text  # type: ignore[attr-defined]
            assert "not deterministic" in str(warning.visual)
            assert "jitter_1.json" in str(warning.visual)
            assert app.screen.query_one("#seed-row").display
            app.screen.query_one("#seed", Switch).value = True
            await pilot.pause()
            assert app.spec.seed
            await _press(pilot, "#record")
            assert not app.screen.query_one("#nondeterminism", Static).display
            assert "recorded twice, identical" in str(
                app.screen.query_one("#recorded", Static).visual
            )
    finally:
        prune(client=docker_client, task=folder)


async def test_an_unverified_task_is_written_only_when_confirmed(
    docker_client: Any, tmp_path: Path
) -> None:
    from lmr_author.sandbox.housekeeping import prune

    folder = f"94-Unverified{tmp_path.name[-6:].replace('_', '')}"
    spec = _noisy_spec(tmp_path, folder)
    spec.goals = [
        GoalSpec(
            "outliers/checks.py",
            "check_values",
            instruction="Implement it.",
            category="Data Processing",
            driver=LAX_DRIVER,
        )
    ]
    spec.instance_id, spec.year, spec.step = 94, 2024, "save"
    # Every recorded call returns None and changes nothing: the fixtures would pass any
    # function that returns None (replay-tests-nothing), so the task is not verified.
    save_spec(spec, draft_path("unverified"))
    bench = tmp_path / "bench"
    app = NewTaskApp(benchmark_dir=bench, draft_name="unverified")
    try:
        async with app.run_test(size=SMALL) as pilot:
            await _settle(pilot)
            await _press(pilot, "#save")
            assert isinstance(app.screen, ConfirmUnverified), app.screen
            reasons = "\n".join(app.screen.reasons)
            assert "replay-tests-nothing" in reasons
            await pilot.press("n")
            await _settle(pilot)
            assert not (bench / folder).exists()
            assert "not verified" in _status(app)
            await _press(pilot, "#save")
            assert isinstance(app.screen, ConfirmUnverified)
            await pilot.press("y")
            await _settle(pilot)
            assert "saved" in _status(app), app.screen.output.text  # type: ignore[attr-defined]
        assert (bench / folder / "info.json").is_file()
    finally:
        prune(client=docker_client, task=folder)
