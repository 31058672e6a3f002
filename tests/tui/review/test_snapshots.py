"""Snapshot tests of the review app at 80×24 and 200×50 (SVG files under __snapshots__/).

Deterministic: fixed terminal size, fixed data, workers awaited, notifications cleared,
no cursor blink. Update after an intended change with ``pytest --snapshot-update`` and
look at the SVGs before committing them. The item shown is the one with lines far longer
than a pane, so the snapshots show wrapping (and, with ``w``, sideways scrolling).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from lmr_author.domain.item_key import ItemKey
from lmr_author.labels.store import LabelStore
from lmr_author.review.session import ReviewSession, open_session
from lmr_author.tui.review import ReviewApp
from tests.tui.review.builders import LONG, TASK, rerun

SIZES = {"80x24": (80, 24), "200x50": (200, 50)}
LONG_ITEM = ItemKey("no_agent-gpt4o", TASK, 2)
SnapCompare = Callable[..., bool]


def steps(*keys: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """Press ``keys`` and leave the screen still: content loaded, no toasts, no blink."""

    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        await app.workers.wait_for_complete()
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
        for widget in app.screen.query(Input):
            widget.cursor_blink = False
        app.clear_notifications()
        await pilot.pause()

    return run_before


def to_long_item(session: ReviewSession) -> tuple[str, ...]:
    """The ``n`` presses that bring the queue from its first item to the long-lined one."""
    position = [item.key for item in session.items].index(LONG_ITEM)
    return ("n",) * position


@pytest.fixture
def long_results(results_dir: Path) -> Path:
    rerun(results_dir, LONG_ITEM.system, LONG_ITEM.implementation, LONG)
    return results_dir


@pytest.mark.parametrize("size", SIZES)
def test_main_screen_blind(
    snap_compare: SnapCompare, long_results: Path, store: LabelStore, size: str
) -> None:
    session = open_session(long_results, "alice", store)
    app = ReviewApp(session)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=steps(*to_long_item(session)))


@pytest.mark.parametrize("size", SIZES)
def test_main_screen_systems_shown(
    snap_compare: SnapCompare, long_results: Path, store: LabelStore, size: str
) -> None:
    session = open_session(long_results, "alice", store, show_systems=True)
    app = ReviewApp(session)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=steps(*to_long_item(session)))


@pytest.mark.parametrize("size", SIZES)
def test_labeled_item_as_diff_shows_verdicts(
    snap_compare: SnapCompare, long_results: Path, store: LabelStore, size: str
) -> None:
    session = open_session(long_results, "alice", store)
    app = ReviewApp(session)
    keys = (*to_long_item(session), "1", "d")
    assert snap_compare(app, terminal_size=SIZES[size], run_before=steps(*keys))


@pytest.mark.parametrize("size", SIZES)
def test_comment_dialog(
    snap_compare: SnapCompare, long_results: Path, store: LabelStore, size: str
) -> None:
    session = open_session(long_results, "alice", store)
    app = ReviewApp(session)
    keys = (*to_long_item(session), "c", "o", "k")
    assert snap_compare(app, terminal_size=SIZES[size], run_before=steps(*keys))


def test_narrow_candidate_wide_and_scrolling_sideways(
    snap_compare: SnapCompare, long_results: Path, store: LabelStore
) -> None:
    """At 80 columns: the candidate pane widened to 75 % and long lines unwrapped."""
    session = open_session(long_results, "alice", store)
    app = ReviewApp(session)
    keys = (*to_long_item(session), "left_square_bracket", "left_square_bracket", "w")
    assert snap_compare(app, terminal_size=SIZES["80x24"], run_before=steps(*keys))


def test_stale_label_is_flagged(
    snap_compare: SnapCompare, results_dir: Path, store: LabelStore
) -> None:
    session = open_session(results_dir, "alice", store, show_systems=True)
    session.label(session.items[0], 3)
    rerun(results_dir, "correct", 1, "def add(a, b):\n    return b + a\n")
    app = ReviewApp(open_session(results_dir, "alice", store, show_systems=True))
    assert snap_compare(app, terminal_size=(120, 36), run_before=steps())


def test_quit_asks_about_an_unsaved_comment(
    snap_compare: SnapCompare, long_results: Path, store: LabelStore
) -> None:
    session = open_session(long_results, "alice", store)
    session.keep_draft(session.items[0], "ok so far, but check the mask")
    app = ReviewApp(session)
    assert snap_compare(app, terminal_size=SIZES["80x24"], run_before=steps("q"))
