"""Snapshot tests of the review screen (SVG files under __snapshots__/).

Deterministic: fixed terminal size, fixed data, workers awaited, notifications cleared,
no cursor blink. Update after an intended change with ``pytest --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from lmr_author.labels.store import LabelStore
from lmr_author.review.session import open_session
from lmr_author.tui.review import ReviewApp
from tests.functional.review.builders import rerun

SIZE = (120, 36)
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


def test_main_screen_blind_side_by_side(
    snap_compare: SnapCompare, results_dir: Path, store: LabelStore
) -> None:
    app = ReviewApp(open_session(results_dir, "alice", store))
    assert snap_compare(app, terminal_size=SIZE, run_before=steps("n", "n", "n"))


def test_labeled_item_as_diff_shows_verdicts(
    snap_compare: SnapCompare, results_dir: Path, store: LabelStore
) -> None:
    app = ReviewApp(open_session(results_dir, "alice", store))
    assert snap_compare(app, terminal_size=SIZE, run_before=steps("n", "n", "1", "d"))


def test_stale_label_is_flagged(
    snap_compare: SnapCompare, results_dir: Path, store: LabelStore
) -> None:
    session = open_session(results_dir, "alice", store)
    session.label(session.items[0], 3)
    rerun(results_dir, "correct", 1, "def add(a, b):\n    return b + a\n")
    app = ReviewApp(open_session(results_dir, "alice", store))
    assert snap_compare(app, terminal_size=SIZE, run_before=steps())


def test_comment_dialog(snap_compare: SnapCompare, results_dir: Path, store: LabelStore) -> None:
    app = ReviewApp(open_session(results_dir, "alice", store))
    assert snap_compare(app, terminal_size=SIZE, run_before=steps("c", "o", "k"))
