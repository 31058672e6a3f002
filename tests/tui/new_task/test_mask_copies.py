"""The Mask step lists the copies of the chosen goal a solver could read, and masks the
ones chosen when the task is built; goal suggestions say when one is a copy of another."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import SelectionList

from lmr_author.authoring.build import build_task
from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, load_spec, save_spec
from lmr_author.authoring.suggest import GoalSuggestion, mark_copies
from lmr_author.tui.new_task.app import NewTaskApp
from tests.support.git_repo import commit_files
from tests.tui.new_task.conftest import LOSSES, UTILS, settle

#: margin_loss kept again beside the method, renamed and reformatted (a reference copy).
REFERENCE = '''\
"""A reference implementation kept for comparison."""
import math

from toy.utils import safe_log


def reference_margin(good, bad, b=0.1):
    acc = 0.0
    for g, w in zip(good, bad):
        acc += -safe_log(1.0 / (1.0 + math.exp(-b * (g - w))))
    return acc / len(good)


KEEP = "this line stays as it is"
'''


def _repo(root: Path) -> Path:
    files = {
        "toy/__init__.py": "",
        "toy/losses.py": LOSSES,
        "toy/utils.py": UTILS,
        "ref/reference.py": REFERENCE,
    }
    commit_files(root / "toy-margin", files, "the toy method and a reference copy")
    return root / "toy-margin"


def _app(repo: Path, draft: str) -> NewTaskApp:
    spec = TaskSpec(
        source=str(repo),
        repo_path=str(repo),
        folder_name="91-Toy",
        step="mask",
        goals=[GoalSpec("toy/losses.py", "margin_loss", instruction="Implement it.")],
    )
    save_spec(spec, draft_path(draft))
    return NewTaskApp(benchmark_dir=Path("bench"), draft_name=draft)


async def test_the_mask_step_lists_a_copy_and_masks_it_when_built(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    app = _app(repo, "copies")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        listing = app.screen.query_one("#copies", SelectionList)
        assert listing.display and listing.option_count == 1
        prompt = str(listing.get_option_at_index(0).prompt)
        assert "ref/reference.py" in prompt and "reference_margin" in prompt
        assert "similarity 1.00" in prompt
        assert "of this goal a solver could read" in str(app.screen.query_one("#status").visual)
        listing.focus()
        await pilot.press("space")
        await settle(pilot)
        assert app.spec.goals[0].masked_copies == ["ref/reference.py:7"]
    spec = load_spec(draft_path("copies"))
    assert spec.goals[0].masked_copies == ["ref/reference.py:7"]

    task = build_task(spec, tmp_path / "bench")
    built = (task.repo_dir / "ref" / "reference.py").read_text()
    assert "zip(good, bad)" not in built and "TODO" in built
    # Every line outside the masked function is as it was.
    assert built.startswith(REFERENCE.split("def reference_margin")[0])
    assert built.endswith('\n\nKEEP = "this line stays as it is"\n')


async def test_a_goal_without_copies_shows_no_list(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "ref" / "reference.py").unlink()
    app = _app(repo, "no-copies")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not app.screen.query_one("#copies", SelectionList).display


def test_a_suggestion_says_when_the_repository_holds_a_copy_of_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    plain = GoalSuggestion("toy/losses.py", "margin_loss", "", 7, 1.0)
    other = GoalSuggestion("toy/losses.py", "unrelated", "", 19, 0.5)
    marked, unmarked = mark_copies(repo, [plain, other])
    assert marked.copy_note() == "copy also in ref/reference.py"
    assert marked.alike == ["ref/reference.py:reference_margin (similarity 1.00)"]
    assert unmarked.copy_note() == ""


async def test_the_goal_step_marks_a_suggestion_with_a_copy(
    tmp_path: Path, toy_paper: Path
) -> None:
    from textual.widgets import OptionList

    repo = _repo(tmp_path)
    spec = TaskSpec(source=str(repo), repo_path=str(repo), step="goal", paper_pdf=str(toy_paper))
    save_spec(spec, draft_path("suggest-copies"))
    app = NewTaskApp(benchmark_dir=Path("bench"), draft_name="suggest-copies")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await settle(pilot)  # the paper loads, the suggestions come, then their copies
        listing = app.screen.query_one("#suggestions", OptionList)
        prompts = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        [margin] = [p for p in prompts if p.startswith("margin_loss")]
        assert "⚠ copy also in ref/reference.py" in margin
        assert not any("⚠" in p for p in prompts if p.startswith("unrelated"))
