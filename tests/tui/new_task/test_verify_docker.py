"""The check step's Docker proof, for real: golden passes, masked fails, log streams in."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import RichLog, Static

from lmr_author.authoring.save import save_draft_task
from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, save_spec
from lmr_author.mutation.stored import current_strength
from lmr_author.tui.new_task.app import NewTaskApp
from tests.tui.new_task.conftest import DRIVER

pytestmark = [pytest.mark.docker, pytest.mark.slow]


async def test_verify_in_docker_proves_the_draft(
    docker_client: Any, tmp_path: Path, toy_repo: Path, toy_paper: Path
) -> None:
    from lmr_author.sandbox.housekeeping import prune

    folder = f"98-VerifyToy{tmp_path.name[-6:].replace('_', '')}"
    spec = TaskSpec(
        folder_name=folder,
        source=str(toy_repo),
        repo_path=str(toy_repo),
        repo_folder_name="toy-margin",
        instance_id=98,
        year=2025,
        paper_name="Margin Losses for Toy Preferences",  # as Save would read it
        paper_pdf=str(toy_paper),
        step="check",
        goals=[
            GoalSpec(
                "toy/losses.py",
                "margin_loss",
                instruction="Implement it.",
                category="Training Objectives & Optimization",
                driver=DRIVER,
            )
        ],
    )
    save_spec(spec, draft_path("verify"))
    app = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="verify")
    try:
        async with app.run_test(size=(150, 48)) as pilot:
            await pilot.click("#verify")
            await pilot.pause()
            await app.workers.wait_for_complete([w for w in app.workers if w.name != "_loader"])
            await pilot.pause()
            status = str(app.screen.query_one("#status", Static).visual)
            assert "verified" in status, status
            log = app.screen.query_one("#verify-log", RichLog)
            text = "\n".join(strip.text for strip in log.lines)
            assert "golden" in text and "masked" in text
            # Test strength: the mutation score and the surviving mutants, as a diff
            await pilot.click("#mutants")
            await pilot.pause()
            await app.workers.wait_for_complete([w for w in app.workers if w.name != "_loader"])
            await pilot.pause()
            score = str(app.screen.query_one("#mutation-score", Static).visual)
            assert "margin_loss:" in score and "mutants killed" in score, app.screen.output.text  # type: ignore[attr-defined]
            survivors = str(app.screen.query_one("#survivors", Static).visual)
            assert "mutant was killed" in survivors or "survivor" in survivors
            text = "\n".join(strip.text for strip in log.lines)
            assert "reusing the verified build of this exact content" in text
        # The mutation run was on the build Save writes: saved as is, with its scores.
        steps: list[str] = []
        saved = save_draft_task(copy.deepcopy(app.spec), tmp_path / "bench", on_step=steps.append)
        assert any("reusing the checks of this exact content (verified)" in s for s in steps)
        assert not any("proving the tests" in s for s in steps), steps
        strength = current_strength(saved, saved.implementations[0])
        assert strength is not None and strength.stored.mutants > 0
    finally:
        prune(client=docker_client, task=folder)
