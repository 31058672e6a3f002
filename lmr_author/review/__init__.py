"""Headless side of the human review: the queue of items, their content, the labeling session.

The Textual app in `lmr_author.tui.review` only draws what these modules return and calls
their methods; everything that reads results or writes labels lives here, so scripts and
tests can drive a review without a terminal.
"""

from __future__ import annotations

from lmr_author.review.content import ItemContent, load_item_content, unified_diff
from lmr_author.review.drafts import DraftKeeper
from lmr_author.review.items import (
    ReviewItem,
    load_queue,
    load_review_items,
    read_benchmark_dir,
    sample_items,
)
from lmr_author.review.order import queue_order
from lmr_author.review.session import ItemState, LabelStatus, ReviewSession, open_session

__all__ = [
    "DraftKeeper",
    "ItemContent",
    "ItemState",
    "LabelStatus",
    "ReviewItem",
    "ReviewSession",
    "load_item_content",
    "load_queue",
    "load_review_items",
    "open_session",
    "queue_order",
    "read_benchmark_dir",
    "sample_items",
    "unified_diff",
]
