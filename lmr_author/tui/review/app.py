"""The human review app (`lmr-author review RESULTS`) and its entry point."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from lmr_author.review.items import load_queue
from lmr_author.review.session import ReviewSession, check_annotator
from lmr_author.tui.review.screens import ReviewScreen
from lmr_author.util.errors import EXIT_OK


class ReviewApp(App[int]):
    """Label a review session's items; every label is stored as its key is pressed."""

    CSS_PATH = "review.tcss"
    TITLE = "lmr-author review"

    def __init__(self, session: ReviewSession) -> None:
        super().__init__()
        self.session = session
        self.sub_title = f"annotator {session.annotator}"

    def on_mount(self) -> None:
        self.push_screen(ReviewScreen(self.session))


def run_review(
    output_dir: Path,
    annotator: str,
    *,
    store_path: Path | None = None,
    sample: int | None = None,
    seed: int = 0,
    show_verdicts: bool = False,
    show_systems: bool = False,
) -> int:
    """Open the review app on the eval output folder ``output_dir``; return the exit code.

    Labels go to the label store at ``store_path`` (default: the user's store). Raises
    `UserError` for a folder without runs or an unusable store, before the screen opens.
    """
    from lmr_author.labels.store import LabelStore

    # Check the inputs before the store is opened (and perhaps created).
    check_annotator(annotator)
    items, benchmark_dir = load_queue(output_dir, sample=sample, seed=seed)
    store = LabelStore(store_path)
    try:
        session = ReviewSession(
            items,
            annotator,
            store,
            benchmark_dir=benchmark_dir,
            show_verdicts=show_verdicts,
            show_systems=show_systems,
        )
        app = ReviewApp(session)
        result = app.run()
    finally:
        store.close()
    return EXIT_OK if result is None else int(result)
