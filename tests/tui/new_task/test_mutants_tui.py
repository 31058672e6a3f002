"""The Check step's survivors at 80×24: one is marked equivalent with a reason (kept in
the draft, so in info.json), another is taken to the Tests step, its diff beside the
driver; and Enter on a typed name picks that function even when another ranks first."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, Static

from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, save_spec
from lmr_author.mutation.mutants import mutants_of
from lmr_author.mutation.score import MutationReport
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.new_task.steps import tests as tests_step
from lmr_author.tui.new_task.steps.check import CheckStep

SMALL = (80, 24)


async def _settle(pilot: Pilot[int]) -> None:
    for _ in range(3):
        ours = [w for w in pilot.app.workers if w.name != "_loader"]
        if ours:
            await pilot.app.workers.wait_for_complete(ours)
        await pilot.pause()


def _app(repo: Path, step: str, name: str) -> NewTaskApp:
    spec = TaskSpec(
        folder_name="07-Toy",
        source=str(repo),
        repo_path=str(repo),
        step=step,
        goals=[GoalSpec("toy/losses.py", "margin_loss", instruction="x", driver="pass\n")],
    )
    save_spec(spec, draft_path(name))
    return NewTaskApp(benchmark_dir=Path("bench"), draft_name=name)


async def test_mark_one_survivor_equivalent_and_take_another_to_the_driver(
    toy_repo: Path,
) -> None:
    survivors = mutants_of((toy_repo / "toy" / "losses.py").read_bytes(), "margin_loss")[:2]
    report = MutationReport("07-Toy", 1, total=5, killed=3, survivors=list(survivors))
    app = _app(toy_repo, "check", "survivors")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        app.screen.post_message(CheckStep.Mutated([report]))
        await pilot.pause()
        score = str(app.screen.query_one("#mutation-score", Static).visual)
        assert "3/5 mutants killed (60%)" in score
        reason = app.screen.query_one("#equivalent-reason", Input)
        reason.focus()
        await pilot.press("enter")  # no reason: refused
        assert app.spec.goals[0].equivalent_mutants == []
        await pilot.press(*"same on these inputs", "enter")
        await pilot.pause()
        [marked] = app.spec.goals[0].equivalent_mutants
        assert marked["mutant"] == survivors[0].key and marked["reason"] == "same on these inputs"
        score = str(app.screen.query_one("#mutation-score", Static).visual)
        assert "3/4 mutants killed (75%), 1 equivalent" in score
        from lmr_author.authoring.check import draft_info

        [entry] = draft_info(app.spec)["implementations"]  # info.json as it will be written
        assert entry["equivalent_mutants"][0]["mutant"] == survivors[0].key
        app.screen.query_one("#add-fixture").focus()
        await pilot.press("enter")
        await _settle(pilot)
        assert isinstance(app.screen, tests_step.TestsStep)
        pane = app.screen.query_one("#survivor-pane")
        assert pane.display and pane.region.y < SMALL[1] - 2
        assert app.survivor_hint is not None and app.survivor_hint.key == survivors[1].key
        screen = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert f"survivor {survivors[1].key}" in screen  # on screen, beside the driver


async def test_enter_picks_the_function_named_exactly(tmp_path: Path) -> None:
    from tests.support.git_repo import commit_files

    repo = tmp_path / "r"
    source = "def get_experiment_configs():\n    pass\n\n\ndef get_delta(m):\n    return m\n"
    commit_files(repo, {"analysis.py": source}, "x")
    spec = TaskSpec(source=str(repo), repo_path=str(repo), step="goal")
    save_spec(spec, draft_path("exact"))
    app = NewTaskApp(benchmark_dir=Path("bench"), draft_name="exact")
    async with app.run_test(size=SMALL) as pilot:
        await _settle(pilot)
        functions = app.screen.query_one("#functions")
        functions.highlighted = 0  # type: ignore[attr-defined]
        app.screen.query_one("#fn-search", Input).focus()
        await pilot.press(*"get_delta", "enter")
        await pilot.pause()
        assert [g.goal_function for g in app.spec.goals] == ["get_delta"]
        assert "added get_delta" in str(app.screen.query_one("#status", Static).visual)
