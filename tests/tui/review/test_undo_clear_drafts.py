"""Undo and clear, comment drafts kept as typed, quitting with a draft, and blindness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Button, Input, Static

from lmr_author.cli import main
from lmr_author.labels.store import LabelStore
from lmr_author.review.session import LabelStatus, open_session
from lmr_author.tui.review import ReviewApp
from lmr_author.tui.review.screens import CommentScreen, ConfirmScreen
from tests.tui.review.builders import SYSTEMS

SIZE = (100, 30)


async def settle(pilot: object) -> None:
    app = pilot.app  # type: ignore[attr-defined]
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]


def screen_text(app: ReviewApp) -> str:
    """Every Static and Button label on the current screen, as one string."""
    texts = [str(widget.render()) for widget in app.screen.query(Static)]
    texts += [str(button.label) for button in app.screen.query(Button)]
    return "\n".join(texts)


def test_session_undo_and_clear(results_dir: Path, store: LabelStore) -> None:
    session = open_session(results_dir, "alice", store)
    first, second = session.items[0], session.items[1]
    assert session.undo() is None and not session.can_undo()
    session.label(first, 1)
    session.label(first, 3)
    session.comment(second, "close, but off by one")
    session.label(second, 2)
    assert store.drafts("alice") == {}
    assert session.undo() == second
    assert session.state(second).status is LabelStatus.UNLABELED
    # The comment typed before the label key is a draft again.
    assert store.drafts("alice") == {second.key: "close, but off by one"}
    assert session.unsaved_comments() == [second]
    assert session.undo() == first
    state = session.state(first)
    assert state.label is not None and state.label.label == 1  # back to the earlier label
    cleared = session.clear(first)
    assert cleared is not None and cleared.label == 1
    assert session.clear(first) is None  # nothing left to clear
    assert store.latest("alice", first.key) is None
    assert session.undo() == first  # undoing the clearing brings the label back
    restored = store.latest("alice", first.key)
    assert restored is not None and restored.label == 1
    # History keeps every label and the clearing.
    assert [(x.label.label, x.cleared) for x in store.events("alice", first.key)] == [
        (1, False),
        (3, False),
        (1, False),
        (1, True),
        (1, False),
    ]
    # A new session sees what the store says.
    again = open_session(results_dir, "alice", store)
    assert again.progress() == (1, 4, 0)
    assert again.comment_for(second) == "close, but off by one"


def test_cleared_labels_are_unlabeled_for_list_export_and_agreement(
    results_dir: Path, store_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with LabelStore(store_path) as store:
        session = open_session(results_dir, "alice", store)
        for item in session.items:
            session.label(item, 3)
        session.clear(session.items[0])
        kept = {item.key for item in session.items[1:]}
    assert main(["labels", "list", "--store", str(store_path), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {(x["system"], x["task"], x["implementation"]) for x in listed} == kept
    exported = tmp_path / "out.json"
    assert main(["labels", "export", "--store", str(store_path), "-o", str(exported)]) == 0
    assert len(json.loads(exported.read_text())) == 3
    capsys.readouterr()
    judge = ["--judge", str(results_dir)]
    code = main(["agreement", "--human", str(store_path), *judge, "--json", "--bootstrap", "0"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["inputs"]["human_labels_counted"] == 3


async def test_undo_and_clear_keys_and_buttons(results_dir: Path, store: LabelStore) -> None:
    app = ReviewApp(open_session(results_dir, "alice", store))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = app.screen.session.items[0]  # type: ignore[attr-defined]
        await pilot.press("2", "n", "3")
        await settle(pilot)
        assert "Labeled 2/4" in str(app.screen.query_one("#progress", Static).render())
        await pilot.press("z")  # undo the 3 on item 2
        await settle(pilot)
        assert "Labeled 1/4" in str(app.screen.query_one("#progress", Static).render())
        await pilot.press("p", "x")  # clear item 1
        await settle(pilot)
        assert store.latest("alice", first.key) is None
        assert "Not labeled yet" in str(app.screen.query_one("#label-state", Static).render())
        await pilot.click("#undo-button")  # undo the clearing
        await settle(pilot)
        latest = store.latest("alice", first.key)
        assert latest is not None and latest.label == 2
        await pilot.click("#clear-button")
        await settle(pilot)
        assert store.latest("alice", first.key) is None


async def test_a_comment_is_kept_as_a_draft_while_typed_and_q_asks(
    results_dir: Path, store_path: Path
) -> None:
    with LabelStore(store_path) as store:
        app = ReviewApp(open_session(results_dir, "alice", store))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            item = app.screen.session.items[0]  # type: ignore[attr-defined]
            await pilot.press("c", *"off by one")
            await pilot.pause()
            assert isinstance(app.screen, CommentScreen)
            # Written while typing, before Save, through another connection to the store.
            with LabelStore(store_path) as other:
                assert other.drafts("alice")[item.key].startswith("off by on")
            await pilot.press("enter")
            await settle(pilot)
            assert "draft" in str(app.screen.query_one("#comment", Static).render())
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            assert "not stored with a label" in str(
                app.screen.query_one("#confirm-question", Static).render()
            )
            await pilot.press("n")  # stay
            await pilot.pause()
            assert not isinstance(app.screen, ConfirmScreen)
            assert app.is_running
            await pilot.press("q", "y")
            await pilot.pause()
        assert app.return_value == 0
        assert store.drafts("alice") == {item.key: "off by one"}
    # The next session shows the draft and stores it with the label.
    with LabelStore(store_path) as store:
        session = open_session(results_dir, "alice", store)
        assert session.comment_for(item) == "off by one"
        saved = session.label(item, 1)
        assert saved.comment == "off by one"
        assert store.drafts("alice") == {}


async def test_cancel_puts_the_comment_back(results_dir: Path, store: LabelStore) -> None:
    app = ReviewApp(open_session(results_dir, "alice", store))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c", *"half a thought")
        await pilot.press("escape")
        await settle(pilot)
        assert store.drafts("alice") == {}
        await pilot.press("q")
        await pilot.pause()
    assert app.return_value == 0  # nothing unsaved: no question


async def test_blind_review_never_names_the_system(results_dir: Path, store: LabelStore) -> None:
    session = open_session(results_dir, "alice", store)
    app = ReviewApp(session)
    async with app.run_test(size=SIZE) as pilot:
        for _ in session.items:
            await settle(pilot)
            text = screen_text(app) + app.title + app.sub_title
            assert not any(system in text for system in SYSTEMS), text
            await pilot.press("1", "n")
        await pilot.press("c")
        await pilot.pause()
        title = str(app.screen.query_one("#comment-title", Static).render())
        assert not any(system in title for system in SYSTEMS)
        assert isinstance(app.screen.query_one("#comment-input"), Input)


def test_blind_notes_do_not_show_the_run_folder(results_dir: Path, store: LabelStore) -> None:
    session = open_session(results_dir, "alice", store)
    item = session.items[0]
    item.candidate_path.unlink()
    note = session.content(item).candidate_note
    assert "missing" in note and "the run folder" in note
    assert not any(system in note for system in SYSTEMS)
    shown = open_session(results_dir, "alice", store, show_systems=True)
    assert item.system in shown.content(item).candidate_note


async def test_show_systems_names_them(results_dir: Path, store: LabelStore) -> None:
    app = ReviewApp(open_session(results_dir, "alice", store, show_systems=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "system correct" in str(app.screen.query_one("#item-title", Static).render())


async def test_the_status_line_says_the_last_action_and_no_toast_covers_the_header(
    results_dir: Path, store: LabelStore
) -> None:
    """At 80×24: after each of 3, z, 2, x the one status line names that action, no toasts."""
    app = ReviewApp(open_session(results_dir, "alice", store))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        task = app.screen.session.items[0].task  # type: ignore[attr-defined]
        expected = {
            "3": "Saved 3 CC",
            "z": "Undone: unlabeled.",
            "2": "Saved 2 LC",
            "x": "Cleared 2 LC (z undoes).",
        }
        for key, said in expected.items():
            await pilot.press(key)
            await settle(pilot)
            assert str(app.screen.query_one("#status", Static).render()) == f"{task}: {said}"
            assert not app._notifications  # nothing drawn over the header
        header = app.screen.query_one("Header").region
        status = app.screen.query_one("#status").region
        assert status.y > header.bottom and status.bottom <= 23  # above the footer
        await pilot.press("p")  # the first item: a warning replaces the last action
        await settle(pilot)
        assert str(app.screen.query_one("#status", Static).render()) == "This is the first item."
