"""Snapshot tests of every step of the new-task app at 80×24 and at 200×50.

80×24 is the smallest terminal an annotator may have: every field and button of a step
must be reachable there (the step body scrolls, panes stack). 200×50 must use the room.
Deterministic: a fixed draft, relative paths under a fixed working folder, workers
awaited, no cursor blink, no notifications. Update after an intended change:
``pytest tests/tui/new_task/test_snapshots.py --snapshot-update``, then look at
the SVG files.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DirectoryTree, Input, TextArea

from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, save_spec
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.new_task.steps import STEPS, StepScreen
from tests.tui.new_task.conftest import DRIVER, settle

SIZES = {"small": (80, 24), "large": (200, 50)}
SnapCompare = Callable[..., bool]


async def _still(pilot: Pilot[Any]) -> None:
    """Wait until the step shows its final state: workers done, tree loaded, no blink."""
    app = pilot.app
    await settle(pilot)  # a worker's message may start another worker (a preview)
    for tree in app.screen.query(DirectoryTree):
        for _ in range(100):
            if tree.root.children:
                break
            await pilot.pause(0.02)
    # Focus lands a moment after mount: under load a snapshot taken before it shows no
    # cursor, one taken after shows it. Wait for it, then freeze the cursors.
    # (a step focuses its first input after a refresh, so wait until focus stays put)
    last, stable = None, 0
    for _ in range(200):
        stable = stable + 1 if app.focused is last and last is not None else 0
        last = app.focused
        if stable >= 5:
            break
        await pilot.pause(0.02)
    await pilot.pause()
    app.clear_notifications()  # a notification times out: never in a snapshot
    for widget in app.screen.query(Input):
        widget.cursor_blink = False
    for area in app.screen.query(TextArea):
        area.cursor_blink = False
        area._cursor_visible = area.has_focus  # blink stopped in either phase: show it
        # TextArea caches rendered lines under a key without the focus: with blink off, a
        # line drawn before focus landed would keep showing no cursor. Draw them again.
        area._line_cache.clear()
        area.refresh()
    await pilot.pause()


@pytest.fixture(autouse=True)
def _stopped_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The status line's clock stands still: a snapshot of a Verify's "in N s" must not
    depend on how long this machine took to get there (it said 2 s under load)."""
    from lmr_author.tui.new_task.steps import base

    monkeypatch.setattr(base, "_clock", lambda: 0.0)


@pytest.fixture
def full_draft(
    tmp_path: Path, toy_repo: Path, toy_paper: Path, monkeypatch: pytest.MonkeyPatch
) -> TaskSpec:
    """A draft with every step filled, its paths relative to the working folder."""
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)  # the LLM button shows only with an endpoint
    (toy_repo / "requirements.txt").write_text("numpy>=1.24\n")
    return TaskSpec(
        folder_name="07-ToyMargin",
        source="toy-margin",
        repo_path=toy_repo.name,
        repo_folder_name="toy-margin",
        repo_commit="0" * 40,
        paper_pdf=toy_paper.name,
        paper_name="Margin Losses for Toy Preferences",
        instance_id=7,
        year=2025,
        gpus=1,  # the check step shows the declared hardware in its fields and info.json
        gpu_memory_gb=24,
        goals=[
            GoalSpec(
                "toy/losses.py",
                "margin_loss",
                instruction="Implement the margin loss of Section 2.",
                category="Training Objectives & Optimization",
                retrieval_context=["toy/utils.py"],
                driver=DRIVER,
            )
        ],
    )


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("step", [name for name, _ in STEPS])
def test_every_step(snap_compare: SnapCompare, full_draft: TaskSpec, step: str, size: str) -> None:
    full_draft.step = step
    save_spec(full_draft, draft_path("snap"))
    app = NewTaskApp(benchmark_dir=Path("benchmark"), draft_name="snap")
    assert snap_compare(app, terminal_size=SIZES[size], run_before=_still)


def test_source_step_of_a_new_draft(snap_compare: SnapCompare) -> None:
    app = NewTaskApp(benchmark_dir=Path("benchmark"), draft_name="empty")
    assert snap_compare(app, terminal_size=SIZES["small"], run_before=_still)


def _at(step: str, draft: TaskSpec) -> NewTaskApp:
    draft.step = step
    save_spec(draft, draft_path("snap-dialog"))
    return NewTaskApp(benchmark_dir=Path("benchmark"), draft_name="snap-dialog")


def test_log_view_of_a_long_error(snap_compare: SnapCompare, full_draft: TaskSpec) -> None:
    async def fail_then_open(pilot: Pilot[Any]) -> None:
        await _still(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, StepScreen)
        screen.log_start("Recording margin_loss in Docker")
        screen.set_status(
            "the driver failed: RuntimeError: the driver broke\n"
            + "\n".join(f'  File "driver.py", line {n}, in <module>' for n in range(1, 30))
            + "\nRuntimeError: the driver broke. Fix the driver and record again.",
            error=True,
        )
        await pilot.press("ctrl+l")
        await pilot.pause()

    app = _at("tests", full_draft)
    assert snap_compare(app, terminal_size=SIZES["small"], run_before=fail_then_open)


def test_nondeterminism_offers_seeding(snap_compare: SnapCompare, full_draft: TaskSpec) -> None:
    from lmr_author.authoring.record_docker import FixtureDifference, RecordingResult
    from lmr_author.tui.new_task.steps.tests import TestsStep

    async def differ(pilot: Pilot[Any]) -> None:
        await _still(pilot)
        result = RecordingResult(
            inputs=[],
            expected=[],
            deterministic=False,
            differences=[FixtureDifference("margin_loss_1.json", "output", "0.31 then 0.77")],
        )
        pilot.app.screen.post_message(TestsStep.Recorded(result, []))
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    app = _at("tests", full_draft)
    assert snap_compare(app, terminal_size=SIZES["small"], run_before=differ)


def test_unverified_save_asks(snap_compare: SnapCompare, full_draft: TaskSpec) -> None:
    from lmr_author.tui.new_task.steps.save import ConfirmUnverified

    async def ask(pilot: Pilot[Any]) -> None:
        await _still(pilot)
        reasons = ["missing-path: the paper is missing", "dynamic: masked code passes test 1"]
        pilot.app.push_screen(ConfirmUnverified(reasons))
        await pilot.pause()

    app = _at("save", full_draft)
    assert snap_compare(app, terminal_size=SIZES["small"], run_before=ask)


def test_retrieval_file_picker(snap_compare: SnapCompare, full_draft: TaskSpec) -> None:
    async def pick(pilot: Pilot[Any]) -> None:
        await _still(pilot)
        pilot.app.screen.query_one("#retrieval-add").press()  # type: ignore[attr-defined]
        await _still(pilot)

    app = _at("instruction", full_draft)
    assert snap_compare(app, terminal_size=SIZES["small"], run_before=pick)


def test_surviving_mutants_are_shown(snap_compare: SnapCompare, full_draft: TaskSpec) -> None:
    from lmr_author.mutation.mutants import Mutant
    from lmr_author.mutation.score import MutationReport
    from lmr_author.tui.new_task.steps.check import CheckStep

    survivor = Mutant(
        index=3,
        operator="constant",
        description="1.0 → 2.0",
        source=b"",
        diff=(
            "--- golden\n+++ mutant\n@@ -13 +13 @@\n"
            "-        total += -safe_log(1.0 / (1.0 + math.exp(-beta * (c - r))))\n"
            "+        total += -safe_log(2.0 / (1.0 + math.exp(-beta * (c - r))))\n"
        ),
    )
    report = MutationReport(
        task="07-ToyMargin", impl_index=1, total=10, killed=9, survivors=[survivor]
    )

    async def scored(pilot: Pilot[Any]) -> None:
        await _still(pilot)
        pilot.app.screen.post_message(CheckStep.Mutated([report]))
        await pilot.pause()
        pilot.app.screen.query_one("#mutation").scroll_visible(animate=False, top=True)
        await pilot.pause()

    app = _at("check", full_draft)
    assert snap_compare(app, terminal_size=SIZES["small"], run_before=scored)


@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_new_goal_s_driver_template(
    snap_compare: SnapCompare, full_draft: TaskSpec, size: str
) -> None:
    full_draft.goals[0].driver = ""
    app = _at("tests", full_draft)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=_still)


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("mutated", [False, True], ids=["untested", "weak"])
def test_verified_says_how_strong_the_tests_are(
    snap_compare: SnapCompare, full_draft: TaskSpec, size: str, mutated: bool
) -> None:
    from lmr_author.authoring.save import SaveCheck
    from lmr_author.mutation.mutants import Mutant
    from lmr_author.mutation.score import MutationReport
    from lmr_author.tui.new_task.steps.check import CheckStep

    async def verified(pilot: Pilot[Any]) -> None:
        await _still(pilot)
        screen = pilot.app.screen
        screen.post_message(CheckStep.Checked(SaveCheck(key="k", verified=True, seconds=3)))
        await _still(pilot)
        if mutated:
            survivors = [
                Mutant(n, "constant", f"{n}.0 → 2.0", b"", diff=f"-    x = {n}.0\n+    x = 2.0\n")
                for n in range(20)
            ]
            report = MutationReport("07-ToyMargin", 1, 21, 1, survivors=survivors)
            screen.post_message(CheckStep.Mutated([report]))
            await _still(pilot)
            screen.query_one("#strength").scroll_visible(animate=False)
            await pilot.pause()

    app = _at("check", full_draft)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=verified)


@pytest.mark.parametrize("size", sorted(SIZES))
def test_weak_tests_of_the_repository_offer_to_strengthen(
    snap_compare: SnapCompare, full_draft: TaskSpec, toy_repo: Path, size: str
) -> None:
    """An imported draft (no driver, the repository's own test at the goal's test path)
    whose tests are weak: Verify's warning offers Strengthen."""
    from lmr_author.authoring.save import SaveCheck
    from lmr_author.mutation.mutants import Mutant
    from lmr_author.mutation.score import MutationReport
    from lmr_author.tui.new_task.steps.check import CheckStep

    (toy_repo / "unit_test").mkdir()
    (toy_repo / "unit_test" / "unit_test_1.py").write_text("from toy.losses import margin_loss\n")
    full_draft.goals[0].driver = ""

    async def weak(pilot: Pilot[Any]) -> None:
        await _still(pilot)
        screen = pilot.app.screen
        screen.post_message(CheckStep.Checked(SaveCheck(key="k", verified=True, seconds=3)))
        await _still(pilot)
        survivors = [
            Mutant(n, "constant", f"{n}.0 → 2.0", b"", diff=f"-    x = {n}.0\n+    x = 2.0\n")
            for n in range(14)
        ]
        screen.post_message(
            CheckStep.Mutated([MutationReport("07-ToyMargin", 1, 17, 3, survivors=survivors)])
        )
        await _still(pilot)
        screen.query_one("#strength").scroll_visible(animate=False)
        await pilot.pause()

    app = _at("check", full_draft)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=weak)
