"""Pilot tests of the review app: labeling, resuming, blind mode, stale labels, mouse."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import ContentSwitcher, Input, Static

from lmr_author.labels.store import LabelStore
from lmr_author.review.session import LabelStatus, open_session
from lmr_author.tui.review import ReviewApp
from tests.tui.review.builders import GOLDEN, rerun

SIZE = (120, 40)


def text_of(app: ReviewApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def settle(pilot: object) -> None:
    app = pilot.app  # type: ignore[attr-defined]
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]


async def test_label_quit_restart_resumes_at_first_unlabeled(
    results_dir: Path, store_path: Path
) -> None:
    with LabelStore(store_path) as store:
        app = ReviewApp(open_session(results_dir, "alice", store, show_systems=True))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert "Item 1 of 4" in text_of(app, "#item-title")
            await pilot.press("3", "n", "2")
            await settle(pilot)
            assert "Labeled 2/4" in text_of(app, "#progress")
            await pilot.press("q")
        assert app.return_value == 0
        labels = store.labels("alice")
        assert [(x.system, x.implementation, x.label) for x in labels] == [
            ("correct", 1, 3),
            ("correct", 2, 2),
        ]
    # A new process-like start: a fresh store connection and a fresh session.
    with LabelStore(store_path) as store:
        app = ReviewApp(open_session(results_dir, "alice", store, show_systems=True))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert "Item 3 of 4" in text_of(app, "#item-title")
            assert "no_agent-gpt4o" in text_of(app, "#item-title")
            assert "Labeled 2/4" in text_of(app, "#progress")
            await pilot.press("p")
            assert "Your label: 2 LC" in text_of(app, "#label-state")
        # Another annotator starts from the beginning.
        other = open_session(results_dir, "bob", store, show_systems=True)
        assert other.first_position() == 0


async def test_blind_mode_hides_verdicts_until_labeled(
    results_dir: Path, store: LabelStore
) -> None:
    app = ReviewApp(open_session(results_dir, "alice", store, show_systems=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        verdicts = text_of(app, "#verdicts")
        assert "Verdicts hidden" in verdicts
        assert "pass" not in verdicts and "CC" not in verdicts
        await pilot.press("1")
        verdicts = text_of(app, "#verdicts")
        assert "Unit tests: pass" in verdicts
        assert "LLM judge: CC (category 3)" in verdicts
        await pilot.press("n")  # the next item is not labeled: blind again
        assert "Verdicts hidden" in text_of(app, "#verdicts")


async def test_show_verdicts_shows_them_from_the_start(
    results_dir: Path, store: LabelStore
) -> None:
    session = open_session(results_dir, "alice", store, show_verdicts=True, show_systems=True)
    app = ReviewApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Unit tests: pass" in text_of(app, "#verdicts")
        await pilot.press("n", "n", "n")
        assert "LLM judge: not judged" in text_of(app, "#verdicts")
        assert "Unit tests: fail" in text_of(app, "#verdicts")


async def test_changed_candidate_is_flagged_and_not_counted(
    results_dir: Path, store: LabelStore
) -> None:
    app = ReviewApp(open_session(results_dir, "alice", store, show_systems=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3", "n", "3")
    rerun(results_dir, "correct", 1, GOLDEN + "\n# edited after labeling\n")

    session = open_session(results_dir, "alice", store, show_systems=True)
    first, second = session.items[0], session.items[1]
    assert session.state(first).status is LabelStatus.STALE
    assert session.state(second).status is LabelStatus.LABELED
    assert session.progress() == (1, 4, 1)
    assert session.first_position() == 0  # the stale item is to do again
    app = ReviewApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "candidate changed" in text_of(app, "#label-state")
        assert "old label 3 CC" in text_of(app, "#label-state")
        assert "Labeled 1/4" in text_of(app, "#progress")
        assert "1 stale" in text_of(app, "#progress")
        assert "Verdicts hidden" in text_of(app, "#verdicts")
        await pilot.press("2")
        assert "Your label: 2 LC" in text_of(app, "#label-state")
        assert "Labeled 2/4" in text_of(app, "#progress")
    latest = store.latest("alice", ("correct", "01-Toy", 1))
    assert latest is not None and latest.label == 2
    assert latest.candidate_sha256 == session.items[0].candidate_sha256


async def test_comment_before_and_after_labeling(results_dir: Path, store: LabelStore) -> None:
    app = ReviewApp(open_session(results_dir, "alice", store, show_systems=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen.focused, Input)
        await pilot.press(*"same as golden", "enter")
        await pilot.pause()
        assert store.latest("alice", ("correct", "01-Toy", 1)) is None  # waits for the label
        assert "saved with your label" in text_of(app, "#comment")
        await pilot.press("3")
        latest = store.latest("alice", ("correct", "01-Toy", 1))
        assert latest is not None and (latest.label, latest.comment) == (3, "same as golden")
        # Editing the comment of a labeled item stores it at once, keeping the label.
        await pilot.press("c")
        await pilot.pause()
        await pilot.press("ctrl+a", "ctrl+k", *"identical", "enter")
        await pilot.pause()
        latest = store.latest("alice", ("correct", "01-Toy", 1))
        assert latest is not None and (latest.label, latest.comment) == (3, "identical")
        # Escape cancels without storing anything.
        await pilot.press("c")
        await pilot.pause()
        await pilot.press("x", "escape")
        await pilot.pause()
        assert len(store.history("alice", ("correct", "01-Toy", 1))) == 2


async def test_filter_unlabeled_skips_labeled_items(results_dir: Path, store: LabelStore) -> None:
    app = ReviewApp(open_session(results_dir, "alice", store, show_systems=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n", "1", "p")  # label item 2, back to item 1
        assert "Item 1 of 4" in text_of(app, "#item-title")
        await pilot.press("u")
        assert "unlabeled only" in text_of(app, "#progress")
        await pilot.press("n")
        assert "Item 3 of 4" in text_of(app, "#item-title")
        await pilot.press("3", "u")  # filter on a labeled item moves to an unlabeled one
        await pilot.press("u")
        assert "Item 4 of 4" in text_of(app, "#item-title")


async def test_only_unlabeled_when_all_are_done(results_dir: Path, store: LabelStore) -> None:
    session = open_session(results_dir, "alice", store, show_systems=True)
    for item in session.items:
        session.label(item, 1)
    app = ReviewApp(open_session(results_dir, "alice", store, show_systems=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Item 1 of 4" in text_of(app, "#item-title")
        assert "Labeled 4/4" in text_of(app, "#progress")
        await pilot.press("u")  # unlabeled only, and none is left: stays put
        assert "Every item is labeled." in text_of(app, "#status")
        await pilot.press("n")
        assert "Item 1 of 4" in text_of(app, "#item-title")


async def test_mouse_buttons_label_and_move(results_dir: Path, store: LabelStore) -> None:
    app = ReviewApp(open_session(results_dir, "alice", store, show_systems=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert await pilot.click("#label-3")
        assert await pilot.click("#next")
        assert await pilot.click("#label-1")
        assert await pilot.click("#previous")
        assert "Item 1 of 4" in text_of(app, "#item-title")
        assert await pilot.click("#diff-button")
        assert app.screen.query_one(ContentSwitcher).current == "diff"
    assert [x.label for x in store.labels("alice")] == [3, 1]


async def test_side_by_side_and_diff_show_the_functions(
    results_dir: Path, store: LabelStore
) -> None:
    app = ReviewApp(open_session(results_dir, "alice", store, show_systems=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n", "n", "n")  # no_agent-gpt4o, Scaler.scale (wrong)
        await settle(pilot)
        content = app.screen.session.content(app.screen.item)  # type: ignore[attr-defined]
        assert content.golden.startswith("class Scaler:\n    def scale(self, values):")
        assert "v * self.factor" in content.golden
        assert "v + self.factor" in content.candidate
        assert "def add" not in content.golden
        assert "Implement Scaler.scale" in text_of(app, "#instruction")
        switcher = app.screen.query_one(ContentSwitcher)
        assert switcher.current == "side"
        await pilot.press("d")
        assert switcher.current == "diff"
        assert "+            out.append(v + self.factor)" in content.diff()
        await pilot.press("d")
        assert switcher.current == "side"


async def test_seeded_sample_is_the_queue(results_dir: Path, store: LabelStore) -> None:
    session = open_session(results_dir, "alice", store, sample=2, seed=3)
    again = open_session(results_dir, "bob", store, sample=2, seed=3)
    assert {x.key for x in session.items} == {x.key for x in again.items}
    app = ReviewApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Item 1 of 2" in text_of(app, "#item-title")
        await pilot.press("2", "n", "1", "n")
        assert "Labeled 2/2" in text_of(app, "#progress")
    assert {x.item for x in store.labels("alice")} == {x.key for x in session.items}
