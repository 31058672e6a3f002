"""Found in the timed new-annotator trial of issue 43 (a torch optimizer, at 80×24): the
Mask step's count of copies to be masked followed the ticks only after leaving the step,
and after a survivor was marked equivalent the next one was not one key away (the focus
stayed in the emptied reason box, where ↓ does nothing and a Tab reaches the button)."""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets import Input, OptionList, SelectionList

from lmr_author.authoring.spec import GoalSpec
from lmr_author.mutation.mutants import mutants_of
from lmr_author.mutation.score import MutationReport
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.new_task.steps.check import CheckStep
from tests.support.git_repo import commit_files
from tests.tui.new_task.conftest import LOSSES, UTILS, draft_app, settle

SMALL = (80, 24)


def _app(repo: Path, step: str, name: str) -> NewTaskApp:
    goal = GoalSpec("toy/losses.py", "margin_loss", instruction="x", driver="pass\n")
    return draft_app(repo, step, name, [goal], folder_name="07-Toy")


def _status(app: NewTaskApp) -> str:
    return str(app.screen.query_one("#status").visual)


async def test_the_count_of_copies_to_be_masked_follows_each_tick(tmp_path: Path) -> None:
    files = {
        "toy/__init__.py": "",
        "toy/losses.py": LOSSES,
        "toy/utils.py": UTILS,
        # Two copies of the goal a solver could read (as a reference and a variant).
        "ref/reference.py": LOSSES.replace("margin_loss", "reference_margin"),
        "ref/variant.py": LOSSES.replace("margin_loss", "variant_margin"),
    }
    repo = tmp_path / "toy-margin"
    commit_files(repo, files, "the toy method and two copies")
    app = _app(repo, "mask", "copies-count")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        listing = app.screen.query_one("#copies", SelectionList)
        assert listing.option_count == 2
        assert "2 copies of this goal a solver could read (0 to be masked)" in _status(app)
        listing.focus()
        await pilot.press("space")
        await pilot.pause()
        assert "(1 to be masked)" in _status(app)
        await pilot.press("down", "space")
        await pilot.pause()
        assert "(2 to be masked)" in _status(app)
        await pilot.press("space")
        await pilot.pause()
        assert "(1 to be masked)" in _status(app)
        assert len(app.spec.goals[0].masked_copies) == 1


async def test_after_marking_a_survivor_equivalent_down_picks_the_next(toy_repo: Path) -> None:
    survivors = mutants_of((toy_repo / "toy" / "losses.py").read_bytes(), "margin_loss")[:3]
    report = MutationReport("07-Toy", 1, total=6, killed=3, survivors=list(survivors))
    app = _app(toy_repo, "check", "survivors-next")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        app.screen.post_message(CheckStep.Mutated([report]))
        await pilot.pause()
        listing = app.screen.query_one("#survivor-list", OptionList)
        assert app.focused is listing  # the survivors are the work now
        await pilot.press("tab", *"same here", "enter")
        await pilot.pause()
        assert [m["mutant"] for m in app.spec.goals[0].equivalent_mutants] == [survivors[0].key]
        # The keys the screen says, as a new annotator pressed them: ↓ to the next
        # survivor, Tab to its reason, Enter.
        assert app.focused is listing
        await pilot.press("down", "tab", *"same there", "enter")
        await pilot.pause()
        marked = [m["mutant"] for m in app.spec.goals[0].equivalent_mutants]
        assert marked == [survivors[0].key, survivors[2].key]
        assert app.screen.query_one("#equivalent-reason", Input).value == ""
        # The last one marked: nothing left to pick, the focus is not in a hidden list.
        await pilot.press("tab", *"and this one", "enter")
        await pilot.pause()
        assert len(app.spec.goals[0].equivalent_mutants) == 3
        assert not listing.display and app.focused is app.screen.query_one("#mutants")
        score = str(app.screen.query_one("#mutation-score").visual)
        assert "3/3 mutants killed (100%), 3 equivalent" in score


async def test_the_mutation_test_says_how_long_it_took(toy_repo: Path) -> None:
    """Build, Record and Verify said their time; the mutation test said none (its log
    ended at its last mutant)."""
    survivors = mutants_of((toy_repo / "toy" / "losses.py").read_bytes(), "margin_loss")[:1]
    report = MutationReport("07-Toy", 1, total=4, killed=3, survivors=list(survivors))
    app = _app(toy_repo, "check", "mutation-time")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CheckStep)
        screen.log_start("Mutation test")  # as the button does, which starts the clock
        screen.post_message(CheckStep.Mutated([report], timed=True))
        await pilot.pause()
        score = str(screen.query_one("#mutation-score").visual)
        assert re.search(r"3/4 mutants killed \(75%\) \(measured in \d+ s\)", score)
        rendered = "\n".join(strip.text for strip in screen._compositor.render_strips())
        assert re.search(r"\(measured in \d+ s\)", rendered)  # whole, on screen at 80×24
        # A result this step did not time (remembered, or posted as is) says no time.
        screen.post_message(CheckStep.Mutated([report]))
        await pilot.pause()
        assert "measured" not in str(screen.query_one("#mutation-score").visual)
