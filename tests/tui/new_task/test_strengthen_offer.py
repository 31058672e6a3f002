"""Verify's weak-tests line offers Strengthen only where it can help: the goal's tests
are the repository's own (no driver recorded), and fewer than half the mutants die."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from lmr_author.authoring.save import SaveCheck
from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, save_spec
from lmr_author.mutation.mutants import Mutant
from lmr_author.mutation.score import MutationReport
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.new_task.steps.check import CheckStep


async def _settle(pilot: Pilot[int]) -> None:
    for _ in range(3):
        ours = [w for w in pilot.app.workers if w.name != "_loader"]
        if ours:
            await pilot.app.workers.wait_for_complete(ours)
        await pilot.pause()


def _report(killed: int) -> MutationReport:
    survivors = [
        Mutant(n, "constant", f"{n}", b"", diff=f"-{n}\n+{n + 1}\n") for n in range(10 - killed)
    ]
    return MutationReport("07-Toy", 1, total=10, killed=killed, survivors=survivors)


@pytest.mark.parametrize(
    ("driver", "killed", "offered"),
    [("", 2, True), ("", 8, False), ("margin_loss(1.0, 2.0)\n", 2, False)],
    ids=["own-tests-weak", "own-tests-strong", "recorded-driver"],
)
async def test_strengthen_is_offered_for_weak_tests_of_the_repository(
    toy_repo: Path, driver: str, killed: int, offered: bool
) -> None:
    (toy_repo / "unit_test").mkdir()
    (toy_repo / "unit_test" / "unit_test_1.py").write_text("from toy.losses import margin_loss\n")
    spec = TaskSpec(
        folder_name="07-Toy",
        source=str(toy_repo),
        repo_path=str(toy_repo),
        step="check",
        goals=[GoalSpec("toy/losses.py", "margin_loss", instruction="x", driver=driver)],
    )
    save_spec(spec, draft_path("offer"))
    app = NewTaskApp(benchmark_dir=Path("bench"), draft_name="offer")
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        app.screen.post_message(CheckStep.Checked(SaveCheck(key="k", verified=True)))
        await _settle(pilot)
        app.screen.post_message(CheckStep.Mutated([_report(killed)]))
        await _settle(pilot)
        assert app.screen.query_one("#strengthen").display is offered
        line = str(app.screen.query_one("#strength", Static).visual)
        assert ("Strengthen records the golden code" in line) is offered


async def test_strengthen_without_a_verified_build_says_to_verify(toy_repo: Path) -> None:
    (toy_repo / "unit_test").mkdir()
    (toy_repo / "unit_test" / "unit_test_1.py").write_text("from toy.losses import margin_loss\n")
    spec = TaskSpec(
        folder_name="07-Toy",
        source=str(toy_repo),
        repo_path=str(toy_repo),
        step="check",
        instance_id=7,
        year=2024,
        goals=[GoalSpec("toy/losses.py", "margin_loss", instruction="x")],
    )
    save_spec(spec, draft_path("offer-unverified"))
    app = NewTaskApp(benchmark_dir=Path("bench"), draft_name="offer-unverified")
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        app.screen.post_message(CheckStep.Checked(SaveCheck(key="k", verified=True)))
        app.screen.post_message(CheckStep.Mutated([_report(2)]))
        await _settle(pilot)
        app.screen.query_one("#strengthen").press()  # type: ignore[attr-defined]
        await _settle(pilot)
        status = str(app.screen.query_one("#status", Static).visual)
        assert "no verified build to strengthen" in status
