"""The lines above the code: which item, where the queue stands, label state, verdicts.

Three lines (four with a comment), so that 24 rows leave room for the code. The item's
title comes from the session, which leaves the system out of a blind review.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from lmr_author.domain.three_way import ThreeWayLabel
from lmr_author.review.items import ReviewItem
from lmr_author.review.session import ItemState, LabelStatus


def describe_label(value: int) -> str:
    label = ThreeWayLabel(value)
    return f"{label.value} {label.short} ({label.long})"


class ItemInfo(Vertical):
    """Item title, progress, the annotator's label (or why it no longer counts), verdicts."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="title-line"):
            yield Static(id="item-title")
            yield Static(id="progress")
        yield Static(id="label-state")
        yield Static(id="comment")
        yield Static(id="verdicts")

    def show(
        self,
        *,
        item: ReviewItem,
        title: str,
        position: int,
        total: int,
        progress: tuple[int, int, int],
        only_unlabeled: bool,
        state: ItemState,
        comment: str,
        comment_pending: bool,
        verdicts_visible: bool,
    ) -> None:
        heading = Text.assemble((f"Item {position + 1} of {total}", "bold"), f"  ·  {title}")
        self.query_one("#item-title", Static).update(heading)
        labeled, count, stale = progress
        line = f"Labeled {labeled}/{count}"
        if stale:
            line += f" · {stale} stale"
        if only_unlabeled:
            line += " · unlabeled only"
        self.query_one("#progress", Static).update(line)
        self._show_state(state)
        comment_widget = self.query_one("#comment", Static)
        if comment:
            suffix = " (draft, saved with your label)" if comment_pending else ""
            comment_widget.update(f"Comment{suffix}: {comment}")
        else:
            comment_widget.update("")
        comment_widget.display = bool(comment)
        self.query_one("#verdicts", Static).update(_verdicts_text(item, verdicts_visible))

    def _show_state(self, state: ItemState) -> None:
        widget = self.query_one("#label-state", Static)
        widget.remove_class("stale", "labeled", "unlabeled")
        widget.add_class(state.status.value)
        if state.status is LabelStatus.LABELED and state.label is not None:
            widget.update(f"Your label: {describe_label(state.label.label)}")
        elif state.status is LabelStatus.STALE and state.label is not None:
            widget.update(
                "⚠ The candidate changed since you labeled it (old label "
                f"{state.label.label} {state.label.name}); the old label is not counted. "
                "Label it again."
            )
        else:
            widget.update("Not labeled yet: press 1, 2 or 3 (z undoes, x clears).")


def _verdicts_text(item: ReviewItem, visible: bool) -> str:
    if not visible:
        return "Verdicts hidden: unit tests and judge show once you label this item."
    judge = "not judged"
    if item.judgment is not None:
        judgment = item.judgment
        judge = judgment.label
        if judgment.category is not None:
            judge += f" (category {judgment.category})"
        if judgment.model:
            judge += f", {judgment.model}"
        if not item.judgment_is_current:
            judge += " — given for an older candidate"
    return f"Unit tests: {item.verdict}  ·  LLM judge: {judge}"
