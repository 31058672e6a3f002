"""Copies among the suggestions: the original (the package's code, the module the
repository imports) ranks above a reference, old, backup or vendored copy of it kept
beside it, and both say why; on small repositories of our own."""

from __future__ import annotations

from pathlib import Path

import pytest

from lmr_author.authoring.suggest import GoalSuggestion, suggest_goals
from lmr_author.authoring.suggest.originals import Originals, Place, named_alike
from tests.authoring.test_suggest import _repo

PAPER = {
    "1": "Schedule-Free Learning\nAbstract\nWe propose Schedule-Free AdamW, an optimizer "
    "that needs no learning rate schedule: it averages the iterates instead.\n",
    "2": "3\nMethod\nThe Schedule-Free step interpolates between the averaged iterate x and "
    "the base iterate z: y = (1 - beta) z + beta x, the gradient is taken at y, "
    "z = z - lr grad, and x = (1 - c) x + c z with c = 1 / t, the averaging weight.\n",
}

STEP = """
import torch


class {cls}(torch.optim.Optimizer):
    def step(self, closure=None):
        {comment}
        for group in self.param_groups:
            beta = group["beta"]
            lr = group["lr"]
            for p in group["params"]:
                state = self.state[p]
                z, x = state["z"], state["x"]
                t = state["t"] = state.get("t", 0) + 1
                c = 1.0 / t
                z.sub_(lr * p.grad)
                x.mul_(1 - c).add_(c * z)
                p.copy_((1 - beta) * z + beta * x)
"""
PLAIN = "# one step"
WORDY = (
    "# Schedule-Free AdamW step: y interpolates the averaged iterate x and the base\n"
    "        # iterate z; z takes the gradient step; x averages z with weight c = 1 / t"
)


def _step(cls: str, comment: str = PLAIN) -> str:
    return STEP.format(cls=cls, comment=comment)


def _steps(found: list[GoalSuggestion]) -> list[GoalSuggestion]:
    return [s for s in found if s.goal_function == "step"]


def test_the_package_optimizer_ranks_above_its_reference_copy_beside_the_package(
    tmp_path: Path,
) -> None:
    # The trial's shape: the reference copy at the top level says the paper's words more.
    repo = _repo(
        tmp_path,
        {
            "schedulefree/__init__.py": "from .adamw_schedulefree import AdamWScheduleFree\n",
            "schedulefree/adamw_schedulefree.py": _step("AdamWScheduleFree"),
            "adamw_schedulefree_reference.py": _step("AdamWScheduleFreeReference", WORDY),
        },
    )
    unranked = suggest_goals(repo, PAPER, copies=False)
    steps = _steps(unranked)
    assert [(s.goal_file, s.class_name) for s in steps] == [
        ("schedulefree/adamw_schedulefree.py", "AdamWScheduleFree"),
        ("adamw_schedulefree_reference.py", "AdamWScheduleFreeReference"),
    ]
    assert steps[0].score < steps[1].score  # the scores alone put the copy first
    assert unranked[0] == steps[0]  # Enter in the empty search picks the package's
    assert (
        steps[0]
        .why()
        .startswith(
            "the original of adamw_schedulefree_reference.py:AdamWScheduleFreeReference.step, "
            "ranked above it: the copy's class name says 'reference'; matches "
        )
    )
    assert steps[1].standing.startswith("a copy of schedulefree/adamw_schedulefree.py:")
    # With the copies marked (the app's second look), the order holds.
    marked = _steps(suggest_goals(repo, PAPER))
    assert [s.class_name for s in marked] == ["AdamWScheduleFree", "AdamWScheduleFreeReference"]


@pytest.mark.parametrize(
    ("copy_file", "copy_class"),
    [
        ("adamw_reference.py", "AdamWScheduleFree"),  # *_reference.py, the same class
        ("reference/adamw.py", "AdamWScheduleFree"),  # a reference/ folder
        ("backup/adamw.py", "AdamWScheduleFree"),
        ("vendored/adamw.py", "AdamWScheduleFree"),
        ("optim/adamw_old.py", "AdamWScheduleFree"),  # _old
        ("adamw_copy.py", "AdamWScheduleFreeCopy"),  # less nested than the original
        ("adamw_ref.py", "AdamWScheduleFree_ref"),
        ("baseline.py", "BaselineAdamWScheduleFree"),
    ],
)
def test_a_copy_named_like_one_ranks_below_the_original(
    tmp_path: Path, copy_file: str, copy_class: str
) -> None:
    repo = _repo(
        tmp_path,
        {"optim/adamw.py": _step("AdamWScheduleFree"), copy_file: _step(copy_class, WORDY)},
    )
    found = suggest_goals(repo, PAPER)
    first = _steps(found)[0]
    assert (first.goal_file, first.class_name) == ("optim/adamw.py", "AdamWScheduleFree")
    assert found[0] == first
    if copy_class != "AdamWScheduleFree":  # a suggestion of its own, below, saying why
        assert first.standing.startswith(f"the original of {copy_file}:{copy_class}.step")
    else:  # the same class: one suggestion, shown as the original, the copy listed
        assert copy_file in first.copies


def test_the_module_the_scripts_import_is_the_original_of_an_unmarked_copy(
    tmp_path: Path,
) -> None:
    # Nothing in the names, the same depth: the scripts import the package's module.
    repo = _repo(
        tmp_path,
        {
            "sfree/__init__.py": "",
            "sfree/optimizer.py": _step("ScheduleFree"),
            "scratch/optimizer.py": _step("ScheduleFree", WORDY),
            "train.py": "from sfree.optimizer import ScheduleFree\n\nScheduleFree([]).step()\n",
        },
    )
    [step] = _steps(suggest_goals(repo, PAPER))
    assert (step.goal_file, step.copies) == ("sfree/optimizer.py", ["scratch/optimizer.py"])


def test_a_standalone_module_at_the_top_keeps_its_rank(tmp_path: Path) -> None:
    # The published benchmark's goals standalone_hyena.py and bert_score_goal.py: a
    # self-contained version beside the package, imported by nothing, is no mere copy.
    repo = _repo(
        tmp_path,
        {
            "sfree/__init__.py": "from .optimizer import ScheduleFree\n",
            "sfree/optimizer.py": _step("ScheduleFree"),
            "standalone_sf.py": _step("StandaloneScheduleFreeAdamW", WORDY),
        },
    )
    found = _steps(suggest_goals(repo, PAPER))
    assert [s.goal_file for s in found] == ["standalone_sf.py", "sfree/optimizer.py"]
    assert [s.standing for s in found] == ["", ""]


def test_a_renamed_copy_found_by_the_copy_scan_ranks_below_what_the_scripts_import(
    tmp_path: Path,
) -> None:
    # Another class name, no copy word: only the copy scan (mark_copies) sees the copy.
    repo = _repo(
        tmp_path,
        {
            "sfree/__init__.py": "",
            "sfree/optimizer.py": _step("ScheduleFree"),
            "scratch/sf.py": _step("ScheduleFreeAdamW", WORDY),
            "train.py": "from sfree.optimizer import ScheduleFree\n\nScheduleFree([]).step()\n",
        },
    )
    before = _steps(suggest_goals(repo, PAPER, copies=False))
    assert [s.class_name for s in before] == ["ScheduleFreeAdamW", "ScheduleFree"]
    after = _steps(suggest_goals(repo, PAPER))
    assert [s.class_name for s in after] == ["ScheduleFree", "ScheduleFreeAdamW"]
    assert after[0].standing == (
        "the original of scratch/sf.py:ScheduleFreeAdamW.step, ranked above it: 1 of the "
        "repository's module imports the original's file, none the copy's"
    )
    assert after[1].standing.startswith("a copy of sfree/optimizer.py:ScheduleFree.step")


def test_two_functions_nothing_tells_apart_keep_their_order(tmp_path: Path) -> None:
    repo = _repo(
        tmp_path,
        {"a/adamw.py": _step("SFAdamW"), "b/adamw.py": _step("ScheduleFreeAdamW", WORDY)},
    )
    found = _steps(suggest_goals(repo, PAPER))
    assert [s.goal_file for s in found] == ["b/adamw.py", "a/adamw.py"]
    assert [s.standing for s in found] == ["", ""]


def test_names_alike_only_by_copy_words() -> None:
    real = Place("adamw.py", "AdamW", "step")
    assert named_alike(real, Place("adamw_reference.py", "AdamWReference", "step"))
    assert named_alike(Place("l.py", "", "loss"), Place("l.py", "", "loss_ref"))
    assert named_alike(Place("loss.py", "", "loss"), Place("loss_old.py", "", "loss"))
    assert not named_alike(real, Place("adamw.py", "AdamW", "zero_grad"))
    assert not named_alike(real, Place("other.py", "Lion", "step"))
    assert not named_alike(Place("a/loss.py", "", "loss"), Place("b/loss.py", "", "loss"))


def test_imports_are_resolved_from_the_importer_the_root_and_a_src_layout() -> None:
    files = {
        "pkg/__init__.py": "from .core import run\nfrom . import extra\n",
        "pkg/core.py": "",
        "pkg/extra.py": "",
        "pkg/sub/deep.py": "from ..core import run\n",
        "src/lib/tool.py": "",
        "scripts/go.py": "import lib.tool as t, os\nfrom helper import x\n",
        "scripts/helper.py": "",
        "helper.py": "",
        "alone.py": "",
    }
    originals = Originals(lambda: files)
    assert originals.importers("pkg/core.py") == {"pkg/__init__.py", "pkg/sub/deep.py"}
    assert originals.importers("pkg/extra.py") == {"pkg/__init__.py"}
    assert originals.importers("src/lib/tool.py") == {"scripts/go.py"}
    assert originals.importers("scripts/helper.py") == {"scripts/go.py"}  # its own folder
    assert originals.importers("helper.py") == set()
    assert originals.importers("alone.py") == set()
